/**
 * The tus upload lock in PostgreSQL, with two lockers on one database standing for two API
 * processes (each has its own connection, as each process does): a lock held in one is respected
 * by the other, the holder is asked to let go across processes, a holder that does not let go makes
 * the other wait and then answer 423, and a lost connection frees its locks and tells its holders.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshStore, freshStore, storeKinds } from '../../test/harness.js';
import { createPgLocker, LOCK_BUSY, type PgLocker } from './pgLocker.js';

const never = () => new AbortController().signal;

describe.runIf(storeKinds.includes('postgres'))('tus upload locks in PostgreSQL', () => {
  let store: FreshStore;
  let url: string;
  const lockers: PgLocker[] = [];
  const locker = (timeoutMs = 5_000) => {
    const l = createPgLocker(url, { timeoutMs });
    lockers.push(l);
    return l;
  };
  beforeAll(async () => {
    store = await freshStore('postgres');
    url = store.env.DATABASE_URL as string;
  });
  afterAll(async () => {
    for (const l of lockers) await l.close();
    await store?.cleanup();
  });

  it('the holder in another process is asked to let go, and the lock passes once it has', async () => {
    const [a, b] = [locker(), locker()];
    const held = a.newLock('upload-1');
    const steps: string[] = [];
    await held.lock(never(), async () => {
      steps.push('a asked to release');
      await held.unlock();
    });
    await b.newLock('upload-1').lock(never(), () => {});
    steps.push('b holds it');
    expect(steps).toEqual(['a asked to release', 'b holds it']);
  });

  it('a holder that does not let go keeps the lock: the other process answers 423 at its deadline, then gets it after unlock', async () => {
    const a = locker();
    const b = locker(400);
    const held = a.newLock('upload-2');
    let asked = 0;
    await held.lock(never(), () => {
      asked++;
    });
    const started = Date.now();
    await expect(b.newLock('upload-2').lock(never(), () => {})).rejects.toEqual(LOCK_BUSY);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(asked).toBeGreaterThan(0);
    await held.unlock();
    await b.newLock('upload-2').lock(never(), () => {});
    // Other uploads were never in the way.
    await a.newLock('upload-3').lock(never(), () => {});
  });

  it('two requests of one process exclude each other too (advisory locks are re-entrant per connection)', async () => {
    const a = locker(300);
    const first = a.newLock('upload-4');
    await first.lock(never(), () => {});
    await expect(a.newLock('upload-4').lock(never(), () => {})).rejects.toEqual(LOCK_BUSY);
    await first.unlock();
    await a.newLock('upload-4').lock(never(), () => {});
  });

  it('a stopped request stops waiting', async () => {
    const [a, b] = [locker(), locker()];
    await a.newLock('upload-5').lock(never(), () => {});
    const stop = new AbortController();
    const waiting = b.newLock('upload-5').lock(stop.signal, () => {});
    setTimeout(() => stop.abort(), 100);
    await expect(waiting).rejects.toEqual(LOCK_BUSY);
  });

  it('a lost connection frees its locks in PostgreSQL and asks its holders to stop', async () => {
    const [a, b] = [locker(), locker()];
    let stopped = false;
    await a.newLock('upload-6').lock(never(), () => {
      stopped = true;
    });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // The connection holding upload locks (class 734003) is killed, as a network cut would.
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks WHERE locktype = 'advisory' AND classid = 734003 AND granted`,
      );
      expect(killed.rows.length).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await b.newLock('upload-6').lock(never(), () => {});
    await expect.poll(() => stopped).toBe(true);
    // The first process takes new locks on a new connection.
    await a.newLock('upload-7').lock(never(), () => {});
  });
});
