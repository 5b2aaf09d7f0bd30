/**
 * The chat's WebSocket (GET /api/chat/socket): a single-use ticket from POST /api/chat/ticket opens
 * it; the server pushes every new message of the holder's conversation (every conversation for an
 * admin), first the ones after `after` when the client resumes, and closes it (4401) once the
 * holder's session or standing ends. The rest of the chat's routes are in routes.ts.
 */
import { upgradeWebSocket } from '@hono/node-server';
import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import { idSchema } from '../http/validate.js';
import { findMemberStanding, sessionEnded, sessionLifetimes } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { listMessages, messagesAfterInAll } from './chat.service.js';
import { chatHubOf, type LiveMessage } from './live.js';
import { markSeen } from './presence.js';
import { redeemTicket, type TicketHolder } from './tickets.js';

export const BAD_TICKET = 'This chat ticket is invalid, used or expired. Ask for a new one.';
export const NOT_A_WEBSOCKET = 'Open this address as a WebSocket';
/** How often an idle socket checks that its session still stands (a push checks it at once). */
export const SOCKET_SESSION_RECHECK_MS = 30_000;
/** The close code of a socket whose session ended (logout, revocation, suspension, erasure). */
export const SESSION_ENDED_CLOSE = 4401;

const socketQuery = z.object({
  ticket: z.string().min(1).max(100).describe('From POST /api/chat/ticket: single use, 60 seconds'),
  after: idSchema.optional().describe('Also send every message after this one first (resume after a reconnect)'),
});

/** The single-use ticket (its `query` is the route's: a malformed ticket or `after` is a 400 before the ticket is spent). */
function chatTicket(ctx: AppContext): Credential<TicketHolder, typeof socketQuery> {
  return {
    who: 'No token: a single-use ticket from POST /api/chat/ticket (`ticket`, 60 seconds) authorizes it.',
    query: socketQuery,
    async verify(_c, { query }) {
      const holder = await redeemTicket(ctx, query.ticket);
      if (!holder) throw new HttpError('chat.invalid_ticket', BAD_TICKET);
      return holder;
    },
  };
}

const socketDoc = (ticket: Credential<TicketHolder, typeof socketQuery>) =>
  describe({
    summary: 'The chat WebSocket',
    description:
      'Upgrade to a WebSocket with a ticket; the server pushes `{ "type": "message", "message": { id, text, from, sentAt, userId } }` for every new message of the conversation (every conversation for an admin). With `after`, the messages after that one come first (for an admin, those of every conversation). A plain GET is a 426; a used, unknown or expired ticket a 401.',
    tags: ['chat'],
    access: { ticket },
    // A plain GET is told to open a WebSocket (426) before its ticket is looked at.
    admit: (c) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw new HttpError('request.websocket_required', NOT_A_WEBSOCKET);
    },
    query: socketQuery,
    errors: [401, 426],
    responses: {
      '101': { description: 'Switching Protocols: the WebSocket is open; each push is a JSON text frame' },
      // Every answer but the upgrade is a refusal: OpenAPI has no success for a protocol switch, so the rest is `default`.
      default: { description: 'Any other answer is a refusal (the JSON error envelope): the socket is not opened' },
    },
  });

export const chatSocketRoutes: Routes = (api, ctx) => {
  const ticket = chatTicket(ctx);
  api.get('/chat/socket', socketDoc(ticket), async function chatSocket(c, next) {
    const { after } = c.req.valid('query');
    const holder = grantOf(c, ticket);
    const follow = holder.role === 'admin' ? null : holder.userId;
    const live = await chatHubOf(ctx);
    /** A member's socket marks them online (replyMail.ts: no mail for a reply pushed to them live). */
    const seen = () => {
      if (follow) void markSeen(ctx.db, follow, ctx.clock.now()).catch((err) => ctx.logger.warn({ err }, 'chat presence not recorded'));
    };
    let stopFollowing: (() => void) | undefined;
    let recheck: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      stopFollowing?.();
      if (recheck) clearInterval(recheck);
    };
    /** The socket lives no longer than its session and its holder's standing (suspended, erased, no longer an admin). */
    async function holderGone(): Promise<boolean> {
      if (holder?.sessionId && (await sessionEnded(ctx.db, holder.sessionId, ctx.clock.now(), sessionLifetimes(ctx.env)))) return true;
      const standing = await findMemberStanding(ctx.db, holder?.userId ?? '');
      return !standing || standing.status === 'suspended' || (holder?.role === 'admin' && standing.role !== 'admin');
    }
    const upgrade = upgradeWebSocket(() => ({
      async onOpen(_evt, ws) {
        let closed = false;
        const endIfGone = async () => {
          if (closed || !(await holderGone())) return closed;
          closed = true;
          stop();
          ws.close(SESSION_ENDED_CLOSE, 'session ended');
          return true;
        };
        seen();
        recheck = setInterval(() => {
          seen();
          void endIfGone().catch((err) => ctx.logger.error({ err }, 'chat socket recheck failed'));
        }, SOCKET_SESSION_RECHECK_MS);
        recheck.unref?.();
        const sent = new Set<string>();
        const push = (message: LiveMessage) => {
          if (sent.has(message.id)) return;
          sent.add(message.id);
          ws.send(JSON.stringify({ type: 'message', message }));
          seen();
        };
        // Each push first checks the session (in order, one after the other): a logged-out or
        // suspended holder gets the close, not the message.
        let pushes = Promise.resolve();
        const send = (message: LiveMessage) => {
          pushes = pushes
            .then(async () => {
              if (!(await endIfGone())) push(message);
            })
            .catch((err) => ctx.logger.error({ err }, 'chat socket recheck failed'));
        };
        // Live first (buffered while the backlog goes out), so nothing falls between the two.
        let backlogDone = false;
        const buffered: LiveMessage[] = [];
        stopFollowing = live.follow(follow, (m) => (backlogDone ? send(m) : buffered.push(m)));
        try {
          if (after && follow) {
            const missed = await listMessages(ctx, follow, { after, limit: 100 });
            if (missed.ok) for (const m of missed.value) send({ ...m, userId: follow });
          } else if (after) {
            // An admin's socket follows every conversation: what any of them got since `after`.
            const missed = await messagesAfterInAll(ctx, after, 100);
            if (missed.ok) for (const m of missed.value) send(m);
          }
        } catch (err) {
          // The client re-reads GET /api/chat/messages when the socket closes.
          ctx.logger.error({ err }, 'chat socket backlog failed');
          ws.close(1011, 'backlog failed');
        } finally {
          backlogDone = true;
          for (const m of buffered) send(m);
        }
      },
      onClose() {
        seen();
        stop();
      },
      onError() {
        stop();
      },
    }));
    return upgrade(c as unknown as Context, next);
  });
};
