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
 * is read again by the client (`?after=` on the socket, or `GET /api/chat/messages`). The listening
 * and the followers are shared with the show chat's hub (shared/pushHub.ts).
 */
import { onSessionsEnded, SESSIONS_ENDED_CHANNEL } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { hubPerContext, startPushHub } from '../shared/pushHub.js';
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

/** Starts listening (on PostgreSQL: resolves once `LISTEN` is in place, so no message of a socket opened later is missed). */
export async function startChatHub(ctx: AppContext): Promise<ChatHub> {
  const hub = await startPushHub<Listener>(ctx, 'chat', (followers) => {
    async function deliver(messageId: string): Promise<void> {
      if (followers.size === 0) return;
      const row = await messageById(ctx, messageId);
      if (!row) return;
      const message = { ...messageDto(row), userId: row.user_id };
      followers.push(
        (l) => l.userId === null || l.userId === row.user_id,
        (l) => l.push(message),
      );
    }
    const deliverLogged = (id: string) => void deliver(id).catch((err) => ctx.logger.error({ err }, 'chat delivery failed'));
    return {
      channels: { [CHAT_CHANNEL]: deliverLogged, [SESSIONS_ENDED_CHANNEL]: followers.sessionsEnded },
      local() {
        const off = ctx.store.onAppended((events) => {
          for (const e of events) if (e.type === 'ChatMessageSent') deliverLogged((e.data as { messageId: string }).messageId);
        });
        const offSessions = onSessionsEnded(ctx, followers.sessionsEnded);
        return () => {
          off();
          offSessions();
        };
      },
    };
  });
  return {
    follow: (userId, push, holder) => hub.follow({ userId, push, holderId: holder?.holderId, sessionsEnded: holder?.sessionsEnded }),
    stop: () => hub.stop(),
  };
}

const hubs = hubPerContext(startChatHub);

/** This process's hub, started with the server (or on the first socket where the app runs without `start`). */
export const chatHubOf = hubs.of;

/** The server stopped its hub: a later socket starts a new one. */
export const forgetChatHub = hubs.forget;
