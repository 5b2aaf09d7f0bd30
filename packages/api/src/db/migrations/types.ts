/** One versioned schema change for the tables that are not derived from events. */
export interface Migration {
  /** 1, 2, 3 … : applied in this order, each once; never renumber or edit one that has shipped. */
  id: number;
  name: string;
  /** DDL/DML for each dialect, statements separated by `;` at line ends. */
  sqlite: string;
  postgres: string;
}
