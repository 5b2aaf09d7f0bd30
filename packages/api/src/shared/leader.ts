/**
 * Leader election: exactly one process runs the time-driven work (the subscription lifecycle, the
 * upload sweeper, the mail sender) however many API processes share one database.
 *
 * PostgreSQL: the leader holds a session advisory lock on a dedicated connection (not the pool),
 * so the lock lives exactly as long as that connection. Followers try to take it every
 * `retryMs` (2.5 s): when the leader dies, PostgreSQL ends its session, the lock is released and
 * another process starts the work within a few seconds. The leader checks its connection at the
 * same pace and stops its work when the connection is gone (it may no longer hold the lock).
 *
 * SQLite (embedded, one process): the process is always the leader.
 */
import pg from 'pg';
import type pino from 'pino';
import type { Env } from '../config/env.js';

/**
 * What the election needs of the app's context (a port: this infrastructure sits below the kernel,
 * which builds the context and starts the election).
 */
export interface LeaderContext {
  /** Only PostgreSQL elects; the embedded SQLite store is one process, always the leader. */
  db: { dialect: string };
  env: Pick<Env, 'DATABASE_URL' | 'INSTANCE_ID'>;
  logger: pino.Logger;
}

/** What the work started on winning gives back to stop it (the kernel's `Started`). */
interface Started {
  stop(): Promise<void>;
}

/** Distinct from the append (734001) and DDL (734002) locks. */
export const LEADER_LOCK_KEY = 734_003;

export interface Leadership {
  isLeader(): boolean;
  /** Stops the work (if leading) and releases the lock. */
  stop(): Promise<void>;
}

export interface LeaderOptions {
  retryMs?: number;
  /** Starts the work when leadership is won; its `stop()` runs when it is lost or on shutdown. */
  work: () => Promise<Started[]>;
}

async function stopAll(started: Started[]): Promise<void> {
  for (const s of [...started].reverse()) await s.stop();
}

/** Resolves once the first attempt has been made, so a lone process starts its work before serving. */
export async function electLeader(ctx: LeaderContext, opts: LeaderOptions): Promise<Leadership> {
  if (ctx.db.dialect !== 'postgres' || !ctx.env.DATABASE_URL) {
    const started = await opts.work();
    return { isLeader: () => true, stop: () => stopAll(started) };
  }
  return electOnPostgres(ctx, ctx.env.DATABASE_URL, opts);
}

async function electOnPostgres(ctx: LeaderContext, url: string, opts: LeaderOptions): Promise<Leadership> {
  const retryMs = opts.retryMs ?? 2500;
  let client: pg.Client | undefined;
  let started: Started[] | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();

  const dropClient = async () => {
    const c = client;
    client = undefined;
    await c?.end().catch(() => {});
  };

  const lose = async (reason: string, err?: unknown) => {
    if (started) {
      ctx.logger.warn({ err, reason }, 'leadership lost; stopping the time-driven work');
      const s = started;
      started = undefined;
      await stopAll(s).catch((e) => ctx.logger.error({ err: e }, 'stopping the leader work failed'));
    }
    await dropClient();
  };

  const tryOnce = async () => {
    if (stopped) return;
    try {
      if (!client) {
        // Work still running without the connection that took the lock (it died while the work
        // was starting): stop it before competing again.
        if (started) await lose('connection lost while starting');
        const c = new pg.Client({ connectionString: url, application_name: 'members-leader' });
        // A dead connection surfaces here and at the next check; the lock died with it.
        c.on('error', (err) => void lose('connection error', err));
        await c.connect();
        client = c;
      }
      if (started) {
        await client.query('SELECT 1');
        return;
      }
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
      if (!r.rows[0]?.ok || stopped) return;
      ctx.logger.info({ instance: ctx.env.INSTANCE_ID ?? process.pid }, 'leadership acquired; starting the time-driven work');
      started = await opts.work();
    } catch (err) {
      await lose('connection check failed', err);
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      attempt = tryOnce().finally(schedule);
    }, retryMs);
    timer.unref();
  };

  attempt = tryOnce();
  await attempt;
  schedule();

  return {
    isLeader: () => Boolean(started),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await attempt;
      if (started) {
        const s = started;
        started = undefined;
        await stopAll(s);
        await client?.query('SELECT pg_advisory_unlock($1)', [LEADER_LOCK_KEY]).catch(() => {});
      }
      await dropClient();
    },
  };
}
