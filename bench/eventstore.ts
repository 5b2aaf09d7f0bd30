/**
 * Event-store figures, each beside its physical reference measured in this same run, for both SQL
 * adapters (SQLite embedded, and PostgreSQL on a throwaway loopback cluster):
 *
 *   append  single-event commits from 16 concurrent writers (the API's shape: one command, one
 *           commit, with every inline projection), against plain INSERTs of rows of the same shape
 *           into the same database through the same driver and adapter, 16 at a time, one commit each;
 *   rebuild every projection rebuilt from a realistic log (lib/generateStore.ts: registrations,
 *           approvals, payments, subscriptions, views; 1,000,000 events, 20,000 with --quick),
 *           against reading those events alone.
 *
 * The generated SQLite store is kept in $BENCH_WORK for the growth bench of the same run.
 *
 *   npx tsx bench/eventstore.ts [--quick]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgres } from '../packages/api/src/db/postgres.js';
import { openSqlite } from '../packages/api/src/db/sqlite.js';
import type { Db } from '../packages/api/src/db/types.js';
import { inlineProjector, migrateProjections, rebuildProjections } from '../packages/api/src/eventstore/projections.js';
import { createSqlEventStore } from '../packages/api/src/eventstore/sqlEventStore.js';
import { startPgCluster } from '../scripts/pgCluster.mjs';
import { generateStore, projections } from './lib/generateStore.js';
import { QUICK, report, SMOKE, WORK } from './lib/report.mjs';

const WRITERS = 16;
const APPENDS = SMOKE ? 320 : QUICK ? 1_600 : 16_000;
export const LOG_EVENTS = SMOKE ? 5_000 : QUICK ? 20_000 : 1_000_000;
const meta = { actorId: 'bench', at: new Date().toISOString() };
const perSecond = (n: number, ms: number) => (n / ms) * 1000;

async function concurrently(total: number, work: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = next++; i < total; i = next++) await work(i);
    }),
  );
  return perSecond(total, performance.now() - t);
}

async function appendFigures(kind: string, db: Db) {
  const store = await createSqlEventStore(db, { project: inlineProjector(projections) });
  await migrateProjections(db, projections);
  const ours = await concurrently(APPENDS, (i) =>
    store.append(`bench-append-${i % 64}`, [{ type: 'BenchTick', data: { i, note: 'a small event' } }], {
      expectedVersion: 'any',
      metadata: meta,
    }),
  );
  await db.exec(`CREATE TABLE bench_plain (
    position BIGINT PRIMARY KEY, stream_id TEXT NOT NULL, version INTEGER NOT NULL, event_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (stream_id, version))`);
  const sample = (await store.readAll({ limit: 1 }))[0];
  const reference = await concurrently(APPENDS, (i) =>
    db.transaction((tx) =>
      tx.run(
        `INSERT INTO bench_plain (position, stream_id, version, event_id, type, data, metadata, recorded_at, prev_hash, hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          i + 1,
          `bench-append-${i % 64}`,
          Math.floor(i / 64) + 1,
          `plain-${i}`,
          'BenchTick',
          JSON.stringify({ i, note: 'a small event' }),
          JSON.stringify(meta),
          sample?.recordedAt ?? meta.at,
          sample?.prevHash ?? '',
          sample?.hash ?? '',
        ],
      ),
    ),
  );
  await db.exec('DROP TABLE bench_plain');
  await store.close();
  report({
    figure: `Event append, single-event commits, ${WRITERS} writers, ${kind}`,
    ours,
    unit: 'commits/s',
    reference,
    referenceLabel: 'plain INSERTs',
    // Not a limit for the store's group commit: concurrent appends share one commit, each plain INSERT commits alone.
    aboveReference:
      'above its reference: the store commits concurrent appends together (group commit), each plain INSERT commits alone, so where a commit is dear (PostgreSQL on a loaded machine) the store can beat it',
    target: '≥ 0.5×',
    pass: ours / reference >= 0.5,
  });
}

async function rebuildFigures(kind: string, db: Db) {
  const store = await createSqlEventStore(db);
  const head = await store.headPosition();
  let t = performance.now();
  let read = 0;
  for await (const _ of store.streamAll({ batchSize: 1000 })) read++;
  const reference = perSecond(read, performance.now() - t);
  t = performance.now();
  const { events } = await rebuildProjections(db, store, projections);
  const ours = perSecond(events, performance.now() - t);
  report({
    figure: `Projection rebuild from ${head.toLocaleString('en-US')} events, ${kind}`,
    ours,
    unit: 'events/s',
    reference,
    referenceLabel: 'reading them',
    target: '≥ 0.5×',
    pass: ours / reference >= 0.5,
    note: `${((events / ours) * 1).toFixed(0)} s`,
  });
}

/** Copies the generated log into PostgreSQL in multi-row INSERTs (generating it there would take an hour). */
async function copyEvents(from: Db, to: Db) {
  const cols = ['position', 'stream_id', 'version', 'event_id', 'type', 'data', 'metadata', 'recorded_at', 'prev_hash', 'hash'];
  let after = 0;
  for (;;) {
    const rows = await from.all<Record<string, unknown>>(
      `SELECT ${cols.join(', ')} FROM events WHERE position > ? ORDER BY position LIMIT 2000`,
      [after],
    );
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]?.position);
    const tuple = `(${cols.map(() => '?').join(', ')})`;
    await to.run(
      `INSERT INTO events (${cols.join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`,
      rows.flatMap((r) => cols.map((c) => r[c])),
    );
  }
  await to.run(
    `INSERT INTO checkpoints (name, position) SELECT 'identity-mail', MAX(position) FROM events
     ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
  );
}

const dir = WORK ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
const storeFile = path.join(dir, `generated-${LOG_EVENTS}`, 'store.sqlite');
console.log(
  `event store: ${APPENDS} single-event appends from ${WRITERS} writers; rebuild from a ${LOG_EVENTS.toLocaleString('en-US')}-event log`,
);

const scratch = fs.mkdtempSync(path.join(dir, 'append-'));
const sqliteAppend = openSqlite(path.join(scratch, 'store.sqlite'));
await appendFigures('SQLite', sqliteAppend);
await sqliteAppend.close();
fs.rmSync(scratch, { recursive: true, force: true });

fs.mkdirSync(path.dirname(storeFile), { recursive: true });
const generated = openSqlite(storeFile);
const g = await generateStore(generated, LOG_EVENTS, { onProgress: (n) => console.log(`  generated ${n.toLocaleString('en-US')} events`) });
console.log(
  `  generated ${g.events.toLocaleString('en-US')} events (${g.members.toLocaleString('en-US')} members) in ${(g.ms / 1000).toFixed(0)} s, ${Math.round(perSecond(g.events, g.ms)).toLocaleString('en-US')} events/s`,
);
await rebuildFigures('SQLite', generated);

let cluster: { url: string; stop(): void } | undefined;
try {
  // Always a throwaway cluster: the benchmark never touches a configured database.
  cluster = await startPgCluster();
  const pgAppend = openPostgres((cluster as { url: string }).url);
  await appendFigures('PostgreSQL', pgAppend);
  // A fresh schema for the log: drop what the append figures left.
  await pgAppend.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  await createSqlEventStore(pgAppend);
  await copyEvents(generated, pgAppend);
  await rebuildFigures('PostgreSQL', pgAppend);
  await pgAppend.close();
} catch (err) {
  console.log(`\npostgres: not measured (${(err as Error).message.split('\n')[0]})`);
  process.exitCode = 1;
} finally {
  cluster?.stop();
  await generated.close();
  if (!WORK) fs.rmSync(dir, { recursive: true, force: true });
}
