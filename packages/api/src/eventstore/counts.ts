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

/**
 * Counter updates held back during a replay: a rebuild moves the same few counter rows hundreds of
 * thousands of times, so inside `deferCounters(tx)` the moves are summed in memory and written once
 * by `flushCounters(tx)` (about a third of a replay's statements). `sumCounts` includes the held-back
 * moves, so a projection still reads what it wrote; nothing reads a per-day figure during a replay.
 */
interface Held {
  counts: Map<string, { table: string; key: string; n: number; total: number }>;
  daily: Map<string, { table: string; day: string; metric: string; value: number; replace: boolean }>;
}
const held = new WeakMap<Queryable, Held>();

export function deferCounters(tx: Queryable): void {
  held.set(tx, { counts: new Map(), daily: new Map() });
}

/** Writes what `deferCounters` held back for `tx` and stops holding. */
export async function flushCounters(tx: Queryable): Promise<void> {
  const h = held.get(tx);
  if (!h) return;
  held.delete(tx);
  for (const c of h.counts.values()) if (c.n !== 0 || c.total !== 0) await add(tx, c.table, c.key, c.n, c.total);
  for (const d of h.daily.values()) await writeDaily(tx, d.table, d.day, d.metric, d.value, d.replace);
}

async function add(tx: Queryable, table: string, key: string, n: number, total: number): Promise<void> {
  const h = held.get(tx);
  if (h) {
    const id = `${table}\u0000${key}`;
    const c = h.counts.get(id) ?? { table, key, n: 0, total: 0 };
    c.n += n;
    c.total += total;
    h.counts.set(id, c);
    return;
  }
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

/** The summed `n` of some groups of a counter table, held-back moves included. */
export async function sumCounts(tx: Queryable, table: string, keys: string[]): Promise<number> {
  const r = await tx.get<{ n: number | string | null }>(
    `SELECT SUM(n) AS n FROM ${table} WHERE key IN (${keys.map(() => '?').join(', ')})`,
    keys,
  );
  let n = Number(r?.n ?? 0);
  const h = held.get(tx);
  if (h) for (const k of keys) n += h.counts.get(`${table}\u0000${k}`)?.n ?? 0;
  return n;
}

/**
 * A per-day figure (a table keyed by `day` and `metric` with a `value`): `replace` sets it, else it
 * is added to. Held back like the counters inside `deferCounters`.
 */
export async function moveDaily(tx: Queryable, table: string, day: string, metric: string, value: number, replace = false): Promise<void> {
  const h = held.get(tx);
  if (!h) return writeDaily(tx, table, day, metric, value, replace);
  const id = `${table}\u0000${day}\u0000${metric}`;
  const d = h.daily.get(id);
  // A set replaces whatever came before it; an addition adds to the held value (set or added).
  if (replace) h.daily.set(id, { table, day, metric, value, replace: true });
  else if (d) d.value += value;
  else h.daily.set(id, { table, day, metric, value, replace: false });
}

async function writeDaily(tx: Queryable, table: string, day: string, metric: string, value: number, replace: boolean): Promise<void> {
  await tx.run(
    `INSERT INTO ${table} (day, metric, value) VALUES (?, ?, ?)
     ON CONFLICT (day, metric) DO UPDATE SET value = ${replace ? 'excluded.value' : `${table}.value + excluded.value`}`,
    [day, metric, value],
  );
}
