/**
 * Event-store throughput on this machine, for both SQL adapters: single-event appends (one commit
 * each, the API's shape), 100-event appends, full-log reads, and a read-model rebuild through every
 * real projection. Prints each figure and its ratio to the raw driver's insert rate measured in
 * ../shared/ENVIRONMENT.md (SQLite WAL 14.7k commits/s; PostgreSQL 1.5–1.8k commits/s on loopback).
 *
 *   npx tsx bench/eventstore.ts [--events N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgres } from '../packages/api/src/db/postgres.js';
import { openSqlite } from '../packages/api/src/db/sqlite.js';
import type { Db } from '../packages/api/src/db/types.js';
import { inlineProjector, migrateProjections, rebuildProjections } from '../packages/api/src/eventstore/projections.js';
import { createSqlEventStore } from '../packages/api/src/eventstore/sqlEventStore.js';
import { modules } from '../packages/api/src/modules.js';
// @ts-expect-error plain .mjs helper without types
import { startPgCluster } from '../scripts/pgCluster.mjs';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('events', 3000);
const RAW = { sqlite: 14_700, postgres: 1_650 };
const meta = { actorId: 'bench', at: new Date().toISOString() };
const projections = modules.flatMap((m) => m.projections ?? []);

function rate(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

/** Registration-shaped events, so the identity projection does real work on rebuild. */
function userEvents(i: number) {
  const id = `bench-${i}`;
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return [
    {
      type: 'UserRegistered',
      data: {
        userId: id,
        email: `${id}@example.test`,
        firstName: 'B',
        lastName: 'M',
        dateOfBirth: '1990-01-01',
        passwordHash: 'x',
        role: 'member',
        registeredAt: at,
      },
    },
    { type: 'UserApproved', data: { userId: id, approvedBy: 'bench', approvedAt: at } },
  ];
}

async function benchAdapter(kind: 'sqlite' | 'postgres', db: Db) {
  const store = await createSqlEventStore(db, { project: inlineProjector(projections) });
  await migrateProjections(db, projections);

  let t = performance.now();
  for (let i = 0; i < N; i++)
    await store.append(`bench-single-${i % 50}`, [{ type: 'Tick', data: { i } }], { expectedVersion: 'any', metadata: meta });
  const single = rate(N, performance.now() - t);

  t = performance.now();
  const batches = Math.max(1, Math.floor(N / 100));
  for (let b = 0; b < batches; b++) {
    const events = Array.from({ length: 100 }, (_, i) => ({ type: 'Tick', data: { b, i } }));
    await store.append(`bench-batch-${b}`, events, { expectedVersion: 'no_stream', metadata: meta });
  }
  const batched = rate(batches * 100, performance.now() - t);

  const users = Math.floor(N / 2);
  for (let i = 0; i < users; i++) await store.append(`user-bench-${i}`, userEvents(i), { expectedVersion: 'no_stream', metadata: meta });

  t = performance.now();
  let read = 0;
  for await (const _ of store.streamAll({ batchSize: 1000 })) read++;
  const readRate = rate(read, performance.now() - t);

  t = performance.now();
  const rebuilt = await rebuildProjections(db, store, projections);
  const rebuildRate = rate(rebuilt.events, performance.now() - t);
  const usersRow = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users');

  console.log(`\n${kind}`);
  console.log(
    `  single-event appends : ${single.toLocaleString()} commits/s  (ratio to raw driver inserts: ${(single / RAW[kind]).toFixed(2)})`,
  );
  console.log(`  100-event appends    : ${batched.toLocaleString()} events/s`);
  console.log(`  read whole log       : ${readRate.toLocaleString()} events/s (${read.toLocaleString()} events)`);
  console.log(
    `  rebuild read models  : ${rebuildRate.toLocaleString()} events/s (${Number(usersRow?.n ?? 0).toLocaleString()} users rebuilt)`,
  );
  await store.close();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
console.log(
  `event store benchmark: ${N} single appends, ${Math.max(1, Math.floor(N / 100)) * 100} batched, ${Math.floor(N / 2)} registrations`,
);
const sqlite = openSqlite(path.join(dir, 'store.sqlite'));
await benchAdapter('sqlite', sqlite);
await sqlite.close();
fs.rmSync(dir, { recursive: true, force: true });

let cluster: { url: string; stop(): void } | undefined;
try {
  // Always a throwaway cluster: the benchmark never touches a configured database.
  cluster = await startPgCluster();
  const pg = openPostgres((cluster as { url: string }).url);
  await benchAdapter('postgres', pg);
  await pg.close();
} catch (err) {
  console.log(`\npostgres: not measured (${(err as Error).message.split('\n')[0]})`);
} finally {
  cluster?.stop();
}
