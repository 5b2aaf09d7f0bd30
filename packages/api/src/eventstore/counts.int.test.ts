/**
 * Counters held back during a replay end exactly where the same moves written one by one end, and a
 * projection reading a counter mid-replay sees its own held-back moves.
 */
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../db/sqlite.js';
import type { Db, Queryable } from '../db/types.js';
import { countsSchema, deferCounters, flushCounters, moveCount, moveDaily, readCounts, sumCounts } from './counts.js';

const DAILY = 'CREATE TABLE daily (day TEXT NOT NULL, metric TEXT NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (day, metric));';

async function fresh(): Promise<Db> {
  const db = openSqlite(':memory:');
  await db.exec(countsSchema('c') + DAILY);
  return db;
}

/** A replay's worth of moves; answers what `sumCounts` read along the way. */
async function moves(tx: Queryable): Promise<number[]> {
  const seen: number[] = [];
  await moveCount(tx, 'c', undefined, { key: 'pending', amount: 10 });
  await moveCount(tx, 'c', undefined, { key: 'pending', amount: 5 });
  await moveCount(tx, 'c', { key: 'pending', amount: 10 }, { key: 'active', amount: 10 });
  seen.push(await sumCounts(tx, 'c', ['active', 'pending']));
  await moveCount(tx, 'c', { key: 'active', amount: 10 }, undefined);
  seen.push(await sumCounts(tx, 'c', ['active']));
  await moveDaily(tx, 'daily', '2026-01-01', 'revenue', 7);
  await moveDaily(tx, 'daily', '2026-01-01', 'revenue', 3);
  await moveDaily(tx, 'daily', '2026-01-01', 'active', 4, true);
  await moveDaily(tx, 'daily', '2026-01-01', 'active', 1);
  await moveDaily(tx, 'daily', '2026-01-02', 'active', 9);
  await moveDaily(tx, 'daily', '2026-01-02', 'active', 2, true);
  return seen;
}

const state = async (db: Db) => ({
  counts: Object.fromEntries(await readCounts(db, 'c')),
  daily: await db.all('SELECT day, metric, value FROM daily ORDER BY day, metric'),
});

describe('counters held back during a replay', () => {
  it('end as the same moves written one by one, and read their own moves meanwhile', async () => {
    const direct = await fresh();
    const held = await fresh();
    // Rows already there before the replay (a rebuild starts from empty tables, a test need not).
    for (const db of [direct, held]) await db.run("INSERT INTO c (key, n, total) VALUES ('active', 2, 20)");
    const seenDirect = await direct.transaction((tx) => moves(tx));
    const seenHeld = await held.transaction(async (tx) => {
      deferCounters(tx);
      const seen = await moves(tx);
      expect(await tx.all('SELECT * FROM daily')).toEqual([]); // nothing written yet
      await flushCounters(tx);
      return seen;
    });
    expect(seenHeld).toEqual(seenDirect);
    expect(seenDirect).toEqual([4, 2]);
    expect(await state(held)).toEqual(await state(direct));
    expect((await state(direct)).daily).toEqual([
      { day: '2026-01-01', metric: 'active', value: 5 },
      { day: '2026-01-01', metric: 'revenue', value: 10 },
      { day: '2026-01-02', metric: 'active', value: 2 },
    ]);
    await direct.close();
    await held.close();
  });
});
