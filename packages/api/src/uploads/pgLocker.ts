/**
 * tus upload locks shared by every API process of one PostgreSQL database: a PATCH, HEAD or DELETE
 * of an upload holds the upload's lock while it runs, so two processes never write one file at
 * once, whatever routes the requests (the shipped nginx config already sends one upload to one
 * process; this makes it hold without nginx, or when nginx takes a busy process for dead).
 *
 * Each lock is a session advisory lock (`pg_try_advisory_lock(class, hashtext(id))`) taken on one
 * connection per process, kept apart from the query pool so that uploads never use up the pool.
 * Like @tus/server's `MemoryLocker`, a request that finds the upload locked asks the holder to let
 * go (tus's `requestRelease`: the holder ends its stale PATCH, e.g. one whose client dropped and
 * came back) and tries again until the lock is free or `timeoutMs` passes (423, which tus clients
 * retry). The holder may be in another process: the ask travels as a `NOTIFY tus_release`.
 * Advisory locks are re-entrant within a session, so a process first checks its own holders.
 * If the connection drops, PostgreSQL frees its locks: every holder of this process is asked to let
 * go at once, and the next lock opens a new connection.
 */
import type { Lock, Locker, RequestRelease } from '@tus/server';
import pg from 'pg';

/** The first key of every upload lock (the second is the upload id's hash); other advisory locks use other keys. */
const LOCK_CLASS = 734_003;
const CHANNEL = 'tus_release';
const RETRY_MS = 50;

/** What a request gets when the upload stays locked: tus clients retry a 423. */
export const LOCK_BUSY = { status_code: 423, body: 'This upload is busy with another request; try again in a moment\n' };

type Log = { warn(obj: object, msg: string): void };

export interface PgLocker extends Locker {
  close(): Promise<void>;
}

export function createPgLocker(url: string, opts: { timeoutMs?: number; logger?: Log } = {}): PgLocker {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  /** Uploads this process holds (or is taking) the lock of, with how to ask each holder to let go. */
  const held = new Map<string, RequestRelease>();
  let client: Promise<pg.Client> | undefined;
  let closed = false;

  function lost(err?: unknown) {
    client = undefined;
    if (closed) return;
    if (held.size > 0) opts.logger?.warn({ err, uploads: held.size }, 'upload lock connection lost; asking the holders to stop');
    for (const release of held.values()) void Promise.resolve(release()).catch(() => {});
    held.clear();
  }

  function connection(): Promise<pg.Client> {
    client ??= (async () => {
      const c = new pg.Client({ connectionString: url });
      c.on('error', (err) => lost(err));
      c.on('end', () => lost());
      c.on('notification', (n) => {
        if (n.channel !== CHANNEL || !n.payload) return;
        const release = held.get(n.payload);
        if (release) void Promise.resolve(release()).catch(() => {});
      });
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      return c;
    })().catch((err) => {
      client = undefined;
      throw err;
    });
    return client;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  function newLock(id: string): Lock {
    let mine: RequestRelease | undefined;
    return {
      async lock(signal, requestRelease) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          if (signal.aborted) throw LOCK_BUSY;
          const local = held.get(id);
          if (local) {
            await local(); // another request of this process holds it
          } else {
            held.set(id, requestRelease); // taken in this process before the round trip: no local race
            let got = false;
            try {
              const c = await connection();
              const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, id]);
              got = r.rows[0]?.ok === true;
              if (!got) await c.query('SELECT pg_notify($1, $2)', [CHANNEL, id]);
            } catch (err) {
              // The database is briefly unreachable: try again until the deadline, like a busy lock.
              opts.logger?.warn({ err, upload: id }, 'upload lock not taken: database unreachable');
            } finally {
              if (!got && held.get(id) === requestRelease) held.delete(id);
            }
            if (got) {
              mine = requestRelease;
              return;
            }
          }
          if (Date.now() >= deadline) throw LOCK_BUSY;
          await sleep(RETRY_MS);
        }
      },
      async unlock() {
        if (!mine || held.get(id) !== mine) return; // never taken, or freed with a lost connection
        held.delete(id);
        mine = undefined;
        const c = await client?.catch(() => undefined);
        await c?.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, id]).catch(() => {});
      },
    };
  }

  return {
    newLock,
    async close() {
      closed = true;
      const c = await client?.catch(() => undefined);
      client = undefined;
      held.clear();
      await c?.end().catch(() => {});
    },
  };
}
