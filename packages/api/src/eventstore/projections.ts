/**
 * Read models are projections of the event log. Inline projections run in the append transaction.
 * Each projection has a schema `version`, recorded in `projection_versions`: at start, when any
 * projection's version changed (or one is new), the read-model tables are dropped, recreated and
 * refilled from the log, so a changed read model never needs a hand-written migration. `rebuildProjections` does the same
 * for every projection on demand, with identical results (a test proves it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pino from 'pino';
import { execStatements, migrate } from '../db/migrate.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db, Queryable } from '../db/types.js';
import { deferCounters, flushCounters } from './counts.js';
import { type EventCodec, type InlineProjector, rowToEvent } from './sqlEventStore.js';
import type { EventStore, RecordedEvent } from './types.js';

export interface Projection {
  name: string;
  /** Bump when `schema` or `apply` changes: the tables are then rebuilt from the log at the next start. */
  version: number;
  /** Tables this projection owns (dropped before a rebuild). */
  tables: string[];
  /** DDL creating those tables. */
  schema: string;
  apply(tx: Queryable, event: RecordedEvent): Promise<void>;
}

export function inlineProjector(projections: Projection[]): InlineProjector {
  return async function projectInline(tx, event) {
    for (const p of projections) await p.apply(tx, event);
  };
}

type Log = Pick<pino.Logger, 'info'>;
const silent: Log = { info: () => {} };

/** The log read through the transaction (so the rebuild sees exactly what its lock protects). */
async function* eventsInTx(tx: Queryable, batchSize: number, codec?: Pick<EventCodec, 'open'>): AsyncIterable<RecordedEvent> {
  let after = 0;
  for (;;) {
    const rows = await tx.all<Parameters<typeof rowToEvent>[0]>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?', [
      after,
      batchSize,
    ]);
    const events = rows.map(rowToEvent);
    for (const e of codec ? await codec.open(tx, events) : events) yield e;
    if (rows.length < batchSize) return;
    after = Number((rows[rows.length - 1] as { position: number }).position);
  }
}

/** Progress lines while replaying: about every this many events. */
const PROGRESS_EVERY = 100_000;

async function replayInto(
  target: Queryable,
  projections: Projection[],
  events: AsyncIterable<RecordedEvent>,
  logger: Log,
  total: number,
): Promise<number> {
  const project = inlineProjector(projections);
  const names = projections.map((p) => p.name);
  let count = 0;
  deferCounters(target);
  for await (const e of events) {
    await project(target, e);
    count++;
    if (count % PROGRESS_EVERY === 0) logger.info({ projections: names, done: count, of: total }, 'rebuild progress');
  }
  await flushCounters(target);
  return count;
}

/** Rows read from the staging file per batch of the copy. */
const COPY_ROWS = 5000;

/**
 * Copies every row of `table` from the staging SQLite into `tx` (PostgreSQL) with `COPY … FROM
 * STDIN`, read from the file 5,000 rows at a time while PostgreSQL takes in the previous batch.
 * Multi-row INSERTs cost twice as much (a JSON parameter per 5,000 rows through
 * `json_populate_recordset`) and a parameter per value as much as the replay itself.
 */
async function copyTable(from: Db, tx: Queryable, table: string): Promise<void> {
  if (!tx.copyRows) throw new Error('copying a staged table needs a transaction with a bulk path (PostgreSQL)');
  const columns = (await from.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}') ORDER BY cid`)).map((c) => c.name);
  async function* batches() {
    let after = 0;
    for (;;) {
      const rows = await from.all<Record<string, unknown>>(
        `SELECT rowid AS _rowid_, ${columns.join(', ')} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${COPY_ROWS}`,
        [after],
      );
      if (rows.length === 0) return;
      after = Number((rows[rows.length - 1] as { _rowid_: number })._rowid_);
      yield rows.map((r) => columns.map((c) => r[c]));
    }
  }
  await tx.copyRows(table, columns, batches());
}

/**
 * Drops, recreates and refills the given projections inside `tx`, which holds the append lock, so no
 * event is appended (by this or another process) while a read model is half built.
 *
 * On PostgreSQL every projection statement would be a network round trip (a few thousand events a
 * second at best), so the replay runs against a staging SQLite file with the same schemas (the
 * projections' SQL is the portable subset both engines run, which every suite proves on both) and
 * the finished tables are copied over with `COPY`, still inside `tx`.
 */
async function rebuildInTx(
  tx: Queryable,
  dialect: Db['dialect'],
  projections: Projection[],
  events: AsyncIterable<RecordedEvent>,
  opts: { logger?: Log; total: number },
): Promise<number> {
  const logger = opts.logger ?? silent;
  const names = projections.map((p) => p.name);
  logger.info({ projections: names, events: opts.total, staged: dialect === 'postgres' }, 'rebuilding projections from the event log');
  for (const p of projections) {
    for (const t of p.tables) await tx.run(`DROP TABLE IF EXISTS ${t}`);
    await execStatements(tx, p.schema);
  }
  let count: number;
  if (dialect === 'postgres') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-rebuild-'));
    const staging = openSqlite(path.join(dir, 'staging.sqlite'));
    try {
      for (const p of projections) await staging.exec(p.schema);
      count = await staging.transaction((stx) => replayInto(stx, projections, events, logger, opts.total));
      for (const p of projections) for (const t of p.tables) await copyTable(staging, tx, t);
    } finally {
      await staging.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } else {
    count = await replayInto(tx, projections, events, logger, opts.total);
  }
  for (const p of projections) {
    await tx.run(
      'INSERT INTO projection_versions (name, version) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version',
      [p.name, p.version],
    );
  }
  logger.info({ projections: names, events: count }, 'projections rebuilt');
  return count;
}

/**
 * When any projection is new or its version differs from the stored one, rebuilds all of them from
 * the database's own log (returning the names that changed), decoded by `codec` when the log seals personal data. Applies the schema migrations first (it needs `events` and `projection_versions`).
 */
export async function migrateProjections(
  db: Db,
  projections: Projection[],
  opts: { logger?: Log; batchSize?: number; codec?: Pick<EventCodec, 'open'> } = {},
): Promise<{ rebuilt: string[] }> {
  await migrate(db);
  return db.transaction(async (tx) => {
    await db.lockForAppend(tx);
    const rows = await tx.all<{ name: string; version: number }>('SELECT name, version FROM projection_versions');
    const stored = new Map(rows.map((r) => [r.name, Number(r.version)]));
    const stale = projections.filter((p) => stored.get(p.name) !== p.version);
    if (stale.length > 0) {
      for (const p of stale) {
        (opts.logger ?? silent).info({ projection: p.name, from: stored.get(p.name) ?? null, to: p.version }, 'projection version changed');
      }
      // All of them, not only the changed ones: projections write into each other's tables (billing
      // keeps membership columns on `users`), so one read model alone cannot be rebuilt faithfully.
      // The cost is one replay of the log either way.
      const head = await tx.get<{ p: number | null }>('SELECT MAX(position) AS p FROM events');
      await rebuildInTx(tx, db.dialect, projections, eventsInTx(tx, opts.batchSize ?? 1000, opts.codec), {
        ...opts,
        total: Number(head?.p ?? 0),
      });
    }
    return { rebuilt: stale.map((p) => p.name) };
  });
}

/**
 * Drops and recreates the projections' tables in `db` and replays every event of `store` into them
 * (the store may be another one, e.g. a copy in KurrentDB), in one transaction.
 */
export async function rebuildProjections(
  db: Db,
  store: EventStore,
  projections: Projection[],
  opts: { batchSize?: number; logger?: Log } = {},
): Promise<{ events: number }> {
  const events = await db.transaction(async (tx) => {
    await db.lockForAppend(tx);
    const total = await store.headPosition();
    return rebuildInTx(tx, db.dialect, projections, store.streamAll({ batchSize: opts.batchSize ?? 1000 }), { ...opts, total });
  });
  return { events };
}
