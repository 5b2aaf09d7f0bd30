/**
 * Several API processes appending to one PostgreSQL at once: each writer has its own connection pool,
 * the global order stays gap-free, the hash chain stays linear, and optimistic concurrency still
 * holds across writers. (Embedded SQLite is one process's store: better-sqlite3 waits for the file's
 * write lock synchronously, so two writers inside one test process would only stall each other.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FreshStore, freshStore, storeKinds } from '../../test/harness.js';
import { openPostgres } from '../db/postgres.js';
import type { Db } from '../db/types.js';
import { eventHash, GENESIS_HASH } from './hashChain.js';
import { createSqlEventStore } from './sqlEventStore.js';
import { ConcurrencyError, type EventStore } from './types.js';

const meta = { actorId: null, at: '2026-01-01T00:00:00.000Z' };

const describePg = storeKinds.includes('postgres') ? describe : describe.skip;

describePg('two API processes appending to one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const kind = 'postgres' as const;
  let fresh: FreshStore;
  let dbs: Db[];
  let writers: EventStore[];

  beforeEach(async () => {
    fresh = await freshStore(kind);
    const open = () => openPostgres(fresh.env.DATABASE_URL as string);
    dbs = [open(), open()];
    writers = [];
    for (const db of dbs) writers.push(await createSqlEventStore(db));
  });

  afterEach(async () => {
    for (const db of dbs) await db.close();
    await fresh.cleanup();
  });

  it('interleaves 2 × 150 appends into one gap-free, linear chain', async () => {
    const work = writers.map((store, w) =>
      Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          store.append(`writer-${w}-${i % 10}`, [{ type: 'Thing', data: { w, i } }], { expectedVersion: 'any', metadata: meta }),
        ),
      ),
    );
    await Promise.all(work);
    const all = await (writers[0] as EventStore).readAll({ limit: 1000 });
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    let prev = GENESIS_HASH;
    for (const e of all) {
      expect(e.prevHash).toBe(prev);
      expect(e.hash).toBe(eventHash(prev, e));
      prev = e.hash;
    }
    // Each stream's versions are 1..n with no duplicates, whichever writer appended.
    for (let s = 0; s < 10; s++) {
      const versions = (await (writers[1] as EventStore).readStream(`writer-0-${s}`)).map((e) => e.version);
      expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
    }
  });

  it('lets only one writer win a race on the same stream version', async () => {
    await (writers[0] as EventStore).append('shared', [{ type: 'Opened', data: {} }], { expectedVersion: 'no_stream', metadata: meta });
    const results = await Promise.allSettled(
      writers.map((store, w) => store.append('shared', [{ type: 'Claimed', data: { w } }], { expectedVersion: 1, metadata: meta })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConcurrencyError);
    expect(await (writers[1] as EventStore).readStream('shared')).toHaveLength(2);
  });
});
