/**
 * What the WebSocket hubs share (the 1:1 chat's chat/live.ts, a live show's room
 * live/showChat.live.ts): the sockets this process holds ("followers"), each pushed what it
 * follows, and where the changes come from —
 *
 * - PostgreSQL (any number of API processes): `LISTEN` on the hub's channels, on a connection of its
 *   own (not the pool); the append's transaction sends the notice, delivered at commit, and every
 *   process hears every change, its own included. A dropped connection is opened again a second
 *   later; a change missed meanwhile is read again by the client (each hub's `?after=` read).
 * - SQLite (one process): the local notices the hub subscribes to (the store's appends…).
 *
 * No broker of our own: PostgreSQL's NOTIFY is the bus. Each hub says what a notice means.
 */
import pg from 'pg';
import type pino from 'pino';
import type { Env } from '../config/env.js';

/** What the hub needs of the app's context (a port: this infrastructure sits below the kernel). */
export interface PushHubContext {
  db: { dialect: string };
  env: Pick<Env, 'DATABASE_URL'>;
  logger: pino.Logger;
}

/** A socket held by this process: who holds it, and what to do when their sessions ended somewhere. */
export interface Follower {
  holderId?: string | undefined;
  /** Called when the holder's sessions ended (signed out, suspended, erased): the socket checks its standing now. */
  sessionsEnded?: (() => void) | undefined;
}

export interface Followers<F extends Follower> {
  readonly size: number;
  /** Pushes to every follower `wants` accepts; one that throws is logged, the others still get theirs. */
  push(wants: (f: F) => boolean, send: (f: F) => void): void;
  /** Every socket `userId` holds checks its standing. */
  sessionsEnded(userId: string): void;
}

export interface PushSources {
  /** PostgreSQL: each channel to LISTEN on, and what to do with a notice's payload. */
  channels: Record<string, (payload: string) => void>;
  /** SQLite: subscribes to the local notices; gives back the unsubscribe. */
  local(): () => void;
}

export interface PushHub<F extends Follower> {
  follow(follower: F): () => void;
  stop(): Promise<void>;
}

const RECONNECT_MS = 1000;

/**
 * Starts a hub called `name` (in its log lines); on PostgreSQL it resolves once `LISTEN` is in
 * place, so no change for a socket opened later is missed.
 */
export async function startPushHub<F extends Follower>(
  ctx: PushHubContext,
  name: string,
  sources: (followers: Followers<F>) => PushSources,
): Promise<PushHub<F>> {
  const set = new Set<F>();
  let stopped = false;
  const followers: Followers<F> = {
    get size() {
      return set.size;
    },
    push(wants, send) {
      for (const f of set) {
        if (!wants(f)) continue;
        try {
          send(f);
        } catch (err) {
          ctx.logger.warn({ err }, `${name} push failed`);
        }
      }
    },
    sessionsEnded(userId) {
      for (const f of set) if (f.holderId === userId) f.sessionsEnded?.();
    },
  };
  const { channels, local } = sources(followers);

  let stopSource: () => Promise<void>;
  if (ctx.db.dialect === 'postgres' && ctx.env.DATABASE_URL) {
    const url = ctx.env.DATABASE_URL;
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    const connect = async () => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: url });
      const retry = (err?: unknown) => {
        if (client !== c) return;
        client = undefined;
        if (err) ctx.logger.warn({ err }, `${name} LISTEN connection lost; reconnecting`);
        c.end().catch(() => {});
        if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
      };
      client = c;
      c.on('error', retry);
      c.on('end', () => retry());
      c.on('notification', (n) => {
        if (n.payload) channels[n.channel]?.(n.payload);
      });
      try {
        await c.connect();
        for (const channel of Object.keys(channels)) await c.query(`LISTEN ${channel}`);
      } catch (err) {
        retry(err);
      }
    };
    await connect();
    stopSource = async () => {
      clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    };
  } else {
    const off = local();
    stopSource = async () => off();
  }

  return {
    follow(follower) {
      set.add(follower);
      return () => set.delete(follower);
    },
    async stop() {
      stopped = true;
      set.clear();
      await stopSource();
    },
  };
}

/** One hub per app context, started on first use (the server starts it at once); `forget` after `stop`. */
export function hubPerContext<C extends object, H>(start: (ctx: C) => Promise<H>): { of(ctx: C): Promise<H>; forget(ctx: C): void } {
  const hubs = new WeakMap<C, Promise<H>>();
  return {
    of(ctx) {
      let hub = hubs.get(ctx);
      if (!hub) {
        hub = start(ctx);
        hubs.set(ctx, hub);
      }
      return hub;
    },
    forget(ctx) {
      hubs.delete(ctx);
    },
  };
}
