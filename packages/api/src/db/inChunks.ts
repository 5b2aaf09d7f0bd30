/**
 * `IN (?, ?, …)` lists in runs of at most 1,000 distinct values: PostgreSQL takes 65,535 parameters
 * a statement and SQLite 32,766, and a read port may be handed every member.
 */
import type { Queryable } from './types.js';

/** Distinct values in runs of at most `size`, in first-seen order. */
export function inChunks<T>(values: readonly T[], size = 1000): T[][] {
  const unique = [...new Set(values)];
  const out: T[][] = [];
  for (let i = 0; i < unique.length; i += size) out.push(unique.slice(i, i + size));
  return out;
}

/**
 * The rows of `sql(marks)` for every run of `values`: `marks` is the run's `?, ?, …`, bound to the
 * run's values once per time the statement names it (`uses`).
 * @example await allIn(db, ids, (marks) => `SELECT * FROM users WHERE id IN (${marks})`)
 */
export async function allIn<T>(q: Queryable, values: readonly string[], sql: (marks: string) => string, uses = 1): Promise<T[]> {
  const out: T[] = [];
  for (const part of inChunks(values)) {
    const marks = part.map(() => '?').join(', ');
    out.push(...(await q.all<T>(sql(marks), Array.from({ length: uses }, () => part).flat())));
  }
  return out;
}
