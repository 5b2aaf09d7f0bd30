/**
 * Leader election and shared rate-limit counters on a real PostgreSQL, with two contexts standing
 * for two processes: one leader at a time, the other takes over after the leader's connection
 * ends (as when its process dies); the counters of one limit are the same for both.
 */
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshStore, freshStore, storeKinds, testEnv } from '../../test/harness.js';
import { exampleSiteConfig } from '../../test/siteConfig.js';
import { createRateLimiter, MemoryRateLimiter, PostgresRateLimiter } from '../db/rateLimit.js';
import { type AppContext, closeContext, createContext } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import { electLeader, LEADER_LOCK_KEY, type Leadership } from './leader.js';

async function waitFor(what: string, fn: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const kind of storeKinds.filter((k) => k === 'postgres')) {
  describe(`leader election and shared counters [${kind}]`, () => {
    let store: FreshStore;
    let a: AppContext;
    let b: AppContext;

    beforeAll(async () => {
      store = await freshStore('postgres');
      const site = exampleSiteConfig();
      const logger = pino({ level: 'silent' });
      a = await createContext(testEnv(store.env), site, allProjections(), { logger });
      b = await createContext(testEnv(store.env), site, allProjections(), { logger });
    });
    afterAll(async () => {
      for (const c of [a, b]) if (c) await closeContext(c);
      await store?.cleanup();
    });

    it('runs the work in one process only; a leader whose connection dies stops, and another takes over', async () => {
      const running = { a: 0, b: 0 };
      const stops = { a: 0, b: 0 };
      const work = (name: 'a' | 'b') => async () => {
        running[name]++;
        return [
          {
            stop: async () => {
              running[name]--;
              stops[name]++;
            },
          },
        ];
      };
      const la: Leadership = await electLeader(a, { work: work('a'), retryMs: 200 });
      const lb: Leadership = await electLeader(b, { work: work('b'), retryMs: 200 });
      expect([la.isLeader(), lb.isLeader()]).toEqual([true, false]);
      // The follower tries again every 200 ms, refused while `a` holds the lock: wait until its leader
      // connection (the one not holding the lock) has finished two more statements, then look.
      const observer = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await observer.connect();
      const followerDone = async () =>
        (
          await observer.query<{ at: Date }>(
            `SELECT state_change AS at FROM pg_stat_activity
             WHERE application_name = 'members-leader' AND datname = current_database() AND state = 'idle'
               AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted)`,
            [LEADER_LOCK_KEY],
          )
        ).rows[0]?.at.getTime();
      const statements = new Set<number>();
      for (const hang = Date.now() + 30_000; statements.size < 3 && Date.now() < hang; await new Promise((r) => setTimeout(r, 20))) {
        const at = await followerDone();
        if (at) statements.add(at);
      }
      await observer.end();
      expect(statements.size).toBe(3);
      expect(running).toEqual({ a: 1, b: 0 });

      // End the leader's session from outside, as PostgreSQL does when its process dies. `a` is
      // still alive here, so it stops its work and competes again: either may win, never both.
      const admin = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await admin.connect();
      const killed = await admin.query(
        `SELECT pg_terminate_backend(l.pid) AS ok FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [LEADER_LOCK_KEY],
      );
      await admin.end();
      expect(killed.rows).toEqual([{ ok: true }]);
      await waitFor('a to stop its work', () => stops.a === 1, 10_000);
      const one = () => running.a + running.b === 1 && la.isLeader() !== lb.isLeader();
      await waitFor('one leader again', one, 10_000);

      // The leader stops (a clean shutdown releases the lock at once): the other takes over.
      const [leader, follower, fname] = la.isLeader() ? [la, lb, 'b' as const] : [lb, la, 'a' as const];
      await leader.stop();
      await waitFor('the other to take over', () => running[fname] === 1 && follower.isLeader(), 10_000);
      await follower.stop();
      expect(running).toEqual({ a: 0, b: 0 });
    });

    it('shares one limit between processes, restarts an expired window, and resets', async () => {
      let now = 1_000_000;
      const la = createRateLimiter(a.db, 'test-login', 3, 60_000, () => now);
      const lb = createRateLimiter(b.db, 'test-login', 3, 60_000, () => now);
      expect(la).toBeInstanceOf(PostgresRateLimiter);
      const hits = [await la.hit('k'), await lb.hit('k'), await la.hit('k'), await lb.hit('k')];
      expect(hits).toEqual([true, true, true, false]);
      expect([await la.isBlocked('k'), await lb.isBlocked('k'), await la.isBlocked('other')]).toEqual([true, true, false]);
      // Another scope counts separately.
      expect(await createRateLimiter(a.db, 'test-ip', 1, 60_000, () => now).hit('k')).toBe(true);
      now += 60_001;
      expect(await lb.isBlocked('k')).toBe(false);
      expect(await la.hit('k')).toBe(true);
      await lb.hit('k');
      await lb.hit('k');
      expect(await la.isBlocked('k')).toBe(true);
      await la.reset('k');
      expect(await lb.isBlocked('k')).toBe(false);
      // Concurrent hits from both processes are all counted (one atomic upsert each).
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? la : lb).hit('burst')));
      expect(many.filter(Boolean)).toHaveLength(3);
      // What one process counted, the other peeks (the login backoff reads the count and its window).
      expect(await lb.peek('burst')).toEqual({ count: 20, resetAt: now + 60_000 });
      expect(await lb.peek('never')).toBeUndefined();
    });

    it('a sliding window restarts at every hit, from either process', async () => {
      let now = 5_000_000;
      const la = createRateLimiter(a.db, 'test-sliding', 3, 60_000, () => now, { sliding: true });
      const lb = createRateLimiter(b.db, 'test-sliding', 3, 60_000, () => now, { sliding: true });
      await la.hit('k');
      now += 50_000;
      await lb.hit('k');
      expect(await la.peek('k')).toEqual({ count: 2, resetAt: now + 60_000 });
      now += 50_000;
      // A fixed window would have ended 100 s after the first hit; this one ends 60 s after the last.
      expect(await lb.peek('k')).toEqual({ count: 2, resetAt: now + 10_000 });
      now += 10_001;
      expect(await la.peek('k')).toBeUndefined();
      await lb.hit('k');
      expect(await la.peek('k')).toEqual({ count: 1, resetAt: now + 60_000 });
    });
  });
}

describe('rate limiter on the embedded store', () => {
  it('is the in-memory one', async () => {
    const store = await freshStore('sqlite');
    const ctx = await createContext(testEnv(store.env), exampleSiteConfig(), allProjections(), {
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(createRateLimiter(ctx.db, 'x', 1, 1000)).toBeInstanceOf(MemoryRateLimiter);
      const leader = await electLeader(ctx, { work: async () => [] });
      expect(leader.isLeader()).toBe(true);
      await leader.stop();
    } finally {
      await closeContext(ctx);
      await store.cleanup();
    }
  });
});
