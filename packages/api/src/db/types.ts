/**
 * The SQL database behind the event store and the read models, as one small async interface
 * that both SQLite (embedded) and PostgreSQL implement. SQL is written once with `?` placeholders
 * in the portable subset both dialects accept (TEXT, INTEGER/BIGINT, ON CONFLICT upserts).
 */
export interface Queryable {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T | undefined>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number }>;
  /**
   * Bulk-loads rows into `table` (PostgreSQL's `COPY … FROM STDIN`, inside the transaction), each row
   * an array of values in `columns`' order (strings, numbers or null). Only where the engine has a
   * bulk path: PostgreSQL's transaction client.
   */
  copyRows?(table: string, columns: readonly string[], rows: AsyncIterable<readonly unknown[][]>): Promise<number>;
}

export type Dialect = 'sqlite' | 'postgres';

export interface Db extends Queryable {
  readonly dialect: Dialect;
  /** Runs `fn` in one write transaction; everything it does commits or rolls back together. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a DDL script (several statements separated by `;`). */
  exec(script: string): Promise<void>;
  /** Locks that serialise writers across processes are taken with this (no-op where the engine already serialises). */
  lockForAppend(tx: Queryable): Promise<void>;
  /** Locks a checkpoint row for the rest of the transaction (so two processes never run one subscriber's event twice). */
  selectForUpdateSuffix: string;
  close(): Promise<void>;
}

/** A unique constraint was violated: the write was rolled back. */
export class UniqueViolation extends Error {
  constructor(
    message: string,
    readonly constraint: string,
  ) {
    super(message);
    this.name = 'UniqueViolation';
  }
}
