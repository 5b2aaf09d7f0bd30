/**
 * Pushes new chat messages to the WebSockets this process holds. Where new messages come from:
 * - PostgreSQL (any number of API processes): `LISTEN members_chat` on a connection of its own; the
 *   payload is the message id only (sent by the append's transaction, delivered at commit), and the
 *   row is read from the read model. Every process hears every message, its own included.
 * - SQLite (one process): the store's local append notifications.
 * The same connection listens on identity's `members_sessions_ended` (a user id: that account was
 * signed out, suspended or erased; SQLite: the local notice): the sockets that account holds check
 * their standing at once and close if it ended, in every process.
 * No broker of our own: a message missed while the listening connection was down (it reconnects)
 * is read again by the client (`?after=` on the socket, or `GET /api/chat/messages`).
 */
import pg from 'pg';
import { onSessionsEnded, SESSIONS_ENDED_CHANNEL } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { CHAT_CHANNEL, type ChatMessageDto, messageById, messageDto } from './chat.service.js';

export type LiveMessage = ChatMessageDto & { userId: string };

interface Listener {
  /** The conversation to follow; null: every conversation (an admin's socket). */
  userId: string | null;
  push(message: LiveMessage): void;
  /** The socket's holder (a member, or the admin following every conversation). */
  holderId?: string | undefined;
  /** Called when the holder's sessions ended somewhere: the socket checks its standing now. */
  sessionsEnded?: (() => void) | undefined;
}

export interface ChatHub {
  follow(userId: string | null, push: (message: LiveMessage) => void, holder?: { holderId: string; sessionsEnded: () => void }): () => void;
  stop(): Promise<void>;
}

const RECONNECT_MS = 1000;

/** Starts listening (on PostgreSQL: resolves once `LISTEN` is in place, so no message of a socket opened later is missed). */
export async function startChatHub(ctx: AppContext): Promise<ChatHub> {
  const listeners = new Set<Listener>();
  let stopped = false;

  async function deliver(messageId: string): Promise<void> {
    if (listeners.size === 0) return;
    const row = await messageById(ctx, messageId);
    if (!row) return;
    const message = { ...messageDto(row), userId: row.user_id };
    for (const l of listeners) {
      if (l.userId !== null && l.userId !== row.user_id) continue;
      try {
        l.push(message);
      } catch (err) {
        ctx.logger.warn({ err }, 'chat push failed');
      }
    }
  }
  const deliverLogged = (id: string) => void deliver(id).catch((err) => ctx.logger.error({ err }, 'chat delivery failed'));
  const sessionsEnded = (userId: string) => {
    for (const l of listeners) if (l.holderId === userId) l.sessionsEnded?.();
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
        if (err) ctx.logger.warn({ err }, 'chat LISTEN connection lost; reconnecting');
        c.end().catch(() => {});
        if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
      };
      client = c;
      c.on('error', retry);
      c.on('end', () => retry());
      c.on('notification', (n) => {
        if (n.channel === CHAT_CHANNEL && n.payload) deliverLogged(n.payload);
        if (n.channel === SESSIONS_ENDED_CHANNEL && n.payload) sessionsEnded(n.payload);
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${CHAT_CHANNEL}`);
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
      for (const e of events) if (e.type === 'ChatMessageSent') deliverLogged((e.data as { messageId: string }).messageId);
    });
    const offSessions = onSessionsEnded(ctx, sessionsEnded);
    stopSource = async () => {
      off();
      offSessions();
    };
  }

  return {
    follow(userId, push, holder) {
      const l: Listener = { userId, push, holderId: holder?.holderId, sessionsEnded: holder?.sessionsEnded };
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

const hubs = new WeakMap<AppContext, Promise<ChatHub>>();

/** This process's hub, started with the server (or on the first socket where the app runs without `start`). */
export function chatHubOf(ctx: AppContext): Promise<ChatHub> {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = startChatHub(ctx);
    hubs.set(ctx, hub);
  }
  return hub;
}

/** The server stopped its hub: a later socket starts a new one. */
export function forgetChatHub(ctx: AppContext): void {
  hubs.delete(ctx);
}
