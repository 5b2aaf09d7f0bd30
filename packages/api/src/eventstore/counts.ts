/**
 * Precomputed counters kept by a projection next to its rows, so dashboards read a handful of rows
 * instead of counting (or summing over) a table that grows with history. A projection reads a row's
 * group before and after applying an event and moves one count (and its amount) from the old group
 * to the new one, in the same transaction as the row itself, so the counters are exact and are
 * rebuilt with the projection.
 */
import type { Queryable } from '../db/types.js';

/** DDL for a counter table owned by a projection (list it in the projection's `tables`). */
export const countsSchema = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  key TEXT PRIMARY KEY,
  n BIGINT NOT NULL DEFAULT 0,
  total BIGINT NOT NULL DEFAULT 0
);
`;

export interface Counted {
  key: string;
  /** Added to the group's `total` (e.g. satoshis), default 0. */
  amount?: number;
}

async function add(tx: Queryable, table: string, key: string, n: number, total: number): Promise<void> {
  await tx.run(
    `INSERT INTO ${table} (key, n, total) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET n = ${table}.n + excluded.n, total = ${table}.total + excluded.total`,
    [key, n, total],
  );
}

/** Moves one row from group `from` to group `to` (either may be absent: a new or a removed row). */
export async function moveCount(tx: Queryable, table: string, from: Counted | undefined, to: Counted | undefined): Promise<void> {
  if (from && to && from.key === to.key && (from.amount ?? 0) === (to.amount ?? 0)) return;
  if (from) await add(tx, table, from.key, -1, -(from.amount ?? 0));
  if (to) await add(tx, table, to.key, 1, to.amount ?? 0);
}

/** Every group of a counter table: key → { n, total }. */
export async function readCounts(q: Queryable, table: string): Promise<Map<string, { n: number; total: number }>> {
  const rows = await q.all<{ key: string; n: number | string; total: number | string }>(`SELECT key, n, total FROM ${table}`);
  return new Map(rows.map((r) => [r.key, { n: Number(r.n), total: Number(r.total) }]));
}
