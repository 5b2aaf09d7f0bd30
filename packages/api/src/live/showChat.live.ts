/**
 * Pushes a live show's chat room to the WebSockets this process holds for that show, as the 1:1
 * chat's hub does (chat/live.ts): on PostgreSQL `LISTEN members_live_chat` on a connection of its own
 * (the payload is `posted:<id>`, `deleted:<id>`, or `muted:<showId>:<userId>` / `unmuted:…` for a
 * member muted or unmuted, sent by the append's transaction, delivered at
 * commit; every process hears every change, its own included) and the row is read from the read
 * model; on SQLite (one process) the store's local append notifications. A change missed while the
 * listening connection was down is read again by the client (`GET /api/live/shows/{id}/chat?after=`).
 * The same connection listens on identity's `members_sessions_ended` (SQLite: the local notice), so
 * a socket whose holder was signed out, suspended or erased checks its standing at once.
 */
import pg from 'pg';
import { onSessionsEnded, SESSIONS_ENDED_CHANNEL } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { findShowChatMessage } from './showChat.projection.js';
import { SHOW_CHAT_CHANNEL, type ShowChatChange, type ShowChatMessageDto, showChatDtos } from './showChat.service.js';

export type ShowChatPush =
  | { type: 'message'; message: ShowChatMessageDto }
  | { type: 'deleted'; showId: string; messageId: string }
  /** A member muted or unmuted (the socket route passes it to that member's own sockets only). */
  | { type: 'muted' | 'unmuted'; showId: string; userId: string };

interface Listener {
  showId: string;
  push(change: ShowChatPush): void;
  /** The socket's holder, and what to do when their sessions ended somewhere (check the standing now). */
  holderId: string;
  sessionsEnded: () => void;
}

export interface ShowChatHub {
  follow(showId: string, push: (change: ShowChatPush) => void, holder: { holderId: string; sessionsEnded: () => void }): () => void;
  stop(): Promise<void>;
}

const RECONNECT_MS = 1000;

export async function startShowChatHub(ctx: AppContext): Promise<ShowChatHub> {
  const listeners = new Set<Listener>();
  let stopped = false;

  async function deliver(kind: ShowChatChange, messageId: string): Promise<void> {
    if (listeners.size === 0) return;
    const row = await findShowChatMessage(ctx.db, messageId);
    if (!row) return;
    let change: ShowChatPush;
    if (kind === 'deleted') change = { type: 'deleted', showId: row.show_id, messageId };
    else if (row.deleted_at) return;
    else change = { type: 'message', message: (await showChatDtos(ctx, [row]))[0] as ShowChatMessageDto };
    for (const l of listeners) {
      if (l.showId !== row.show_id) continue;
      try {
        l.push(change);
      } catch (err) {
        ctx.logger.warn({ err }, 'show chat push failed');
      }
    }
  }
  /** A mute or an unmute: nothing to read, the notice carries it. */
  function deliverMute(change: Extract<ShowChatPush, { type: 'muted' | 'unmuted' }>): void {
    for (const l of listeners) {
      if (l.showId !== change.showId) continue;
      try {
        l.push(change);
      } catch (err) {
        ctx.logger.warn({ err }, 'show chat push failed');
      }
    }
  }
  const deliverLogged = (kind: ShowChatChange, id: string) =>
    void deliver(kind, id).catch((err) => ctx.logger.error({ err }, 'show chat delivery failed'));
  const sessionsEnded = (userId: string) => {
    for (const l of listeners) if (l.holderId === userId) l.sessionsEnded();
  };

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
        if (err) ctx.logger.warn({ err }, 'show chat LISTEN connection lost; reconnecting');
        c.end().catch(() => {});
        if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
      };
      client = c;
      c.on('error', retry);
      c.on('end', () => retry());
      c.on('notification', (n) => {
        if (n.channel === SESSIONS_ENDED_CHANNEL && n.payload) return sessionsEnded(n.payload);
        if (n.channel !== SHOW_CHAT_CHANNEL || !n.payload) return;
        const [kind, id, userId] = n.payload.split(':');
        if ((kind === 'posted' || kind === 'deleted') && id) deliverLogged(kind, id);
        if ((kind === 'muted' || kind === 'unmuted') && id && userId) deliverMute({ type: kind, showId: id, userId });
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${SHOW_CHAT_CHANNEL}`);
        await c.query(`LISTEN ${SESSIONS_ENDED_CHANNEL}`);
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
    const off = ctx.store.onAppended((events) => {
      for (const e of events) {
        const { showId, userId } = e.data as { showId?: string; userId?: string };
        if ((e.type === 'ShowChatMemberMuted' || e.type === 'ShowChatMemberUnmuted') && showId && userId)
          deliverMute({ type: e.type === 'ShowChatMemberMuted' ? 'muted' : 'unmuted', showId, userId });
        const id = (e.data as { messageId?: string }).messageId;
        if (!id) continue;
        if (e.type === 'ShowChatMessagePosted') deliverLogged('posted', id);
        if (e.type === 'ShowChatMessageDeleted') deliverLogged('deleted', id);
      }
    });
    const offSessions = onSessionsEnded(ctx, sessionsEnded);
    stopSource = async () => {
      off();
      offSessions();
    };
  }

  return {
    follow(showId, push, holder) {
      const l: Listener = { showId, push, ...holder };
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async stop() {
      stopped = true;
      listeners.clear();
      await stopSource();
    },
  };
}

const hubs = new WeakMap<AppContext, Promise<ShowChatHub>>();

/** This process's hub, started with the server (or on the first socket where the app runs without `start`). */
export function showChatHubOf(ctx: AppContext): Promise<ShowChatHub> {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = startShowChatHub(ctx);
    hubs.set(ctx, hub);
  }
  return hub;
}

export function forgetShowChatHub(ctx: AppContext): void {
  hubs.delete(ctx);
}
