/**
 * Distinct values in runs of at most `size`, for `IN (?, ?, …)` lists: PostgreSQL takes 65,535
 * parameters a statement and SQLite 32,766, and a read port may be handed every member.
 */
export function inChunks<T>(values: readonly T[], size = 1000): T[][] {
  const unique = [...new Set(values)];
  const out: T[][] = [];
  for (let i = 0; i < unique.length; i += size) out.push(unique.slice(i, i + size));
  return out;
}
