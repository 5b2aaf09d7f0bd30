/**
 * Pushes a live show's chat room to the WebSockets this process holds for that show, through the
 * hub the 1:1 chat's uses too (shared/pushHub.ts): on PostgreSQL `LISTEN members_live_chat` on a connection of its own
 * (the payload is `posted:<id>`, `deleted:<id>`, or `muted:<showId>:<userId>` / `unmuted:…` for a
 * member muted or unmuted, sent by the append's transaction, delivered at
 * commit; every process hears every change, its own included) and the row is read from the read
 * model; on SQLite (one process) the store's local append notifications. A change missed while the
 * listening connection was down is read again by the client (`GET /api/live/shows/{id}/chat?after=`).
 * The same connection listens on identity's `members_sessions_ended` (SQLite: the local notice), so
 * a socket whose holder was signed out, suspended or erased checks its standing at once.
 */
import { onSessionsEnded, SESSIONS_ENDED_CHANNEL } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { hubPerContext, startPushHub } from '../shared/pushHub.js';
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

export async function startShowChatHub(ctx: AppContext): Promise<ShowChatHub> {
  const hub = await startPushHub<Listener>(ctx, 'show chat', (followers) => {
    const toShow = (showId: string, change: ShowChatPush) =>
      followers.push(
        (l) => l.showId === showId,
        (l) => l.push(change),
      );
    async function deliver(kind: ShowChatChange, messageId: string): Promise<void> {
      if (followers.size === 0) return;
      const row = await findShowChatMessage(ctx.db, messageId);
      if (!row) return;
      if (kind === 'deleted') toShow(row.show_id, { type: 'deleted', showId: row.show_id, messageId });
      else if (!row.deleted_at)
        toShow(row.show_id, { type: 'message', message: (await showChatDtos(ctx, [row]))[0] as ShowChatMessageDto });
    }
    const deliverLogged = (kind: ShowChatChange, id: string) =>
      void deliver(kind, id).catch((err) => ctx.logger.error({ err }, 'show chat delivery failed'));
    /** A mute or an unmute: nothing to read, the notice carries it. */
    const deliverMute = (type: 'muted' | 'unmuted', showId: string, userId: string) => toShow(showId, { type, showId, userId });
    return {
      channels: {
        [SHOW_CHAT_CHANNEL]: (payload) => {
          const [kind, id, userId] = payload.split(':');
          if ((kind === 'posted' || kind === 'deleted') && id) deliverLogged(kind, id);
          if ((kind === 'muted' || kind === 'unmuted') && id && userId) deliverMute(kind, id, userId);
        },
        [SESSIONS_ENDED_CHANNEL]: followers.sessionsEnded,
      },
      local() {
        const off = ctx.store.onAppended((events) => {
          for (const e of events) {
            const { showId, userId, messageId } = e.data as { showId?: string; userId?: string; messageId?: string };
            if ((e.type === 'ShowChatMemberMuted' || e.type === 'ShowChatMemberUnmuted') && showId && userId)
              deliverMute(e.type === 'ShowChatMemberMuted' ? 'muted' : 'unmuted', showId, userId);
            if (!messageId) continue;
            if (e.type === 'ShowChatMessagePosted') deliverLogged('posted', messageId);
            if (e.type === 'ShowChatMessageDeleted') deliverLogged('deleted', messageId);
          }
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
    follow: (showId, push, holder) => hub.follow({ showId, push, ...holder }),
    stop: () => hub.stop(),
  };
}

const hubs = hubPerContext(startShowChatHub);

/** This process's hub, started with the server (or on the first socket where the app runs without `start`). */
export const showChatHubOf = hubs.of;

export const forgetShowChatHub = hubs.forget;
