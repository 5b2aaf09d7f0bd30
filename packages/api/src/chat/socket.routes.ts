/**
 * The chat's WebSocket (GET /api/chat/socket): a single-use ticket from POST /api/chat/ticket opens
 * it; the server pushes every new message of the holder's conversation (every conversation for an
 * admin), first the ones after `after` when the client resumes, and closes it (4401) once the
 * holder's session or standing ends: at once when it ends by sign-out, suspension or erasure (the
 * hub hears identity's notice, in every process), else at the next push or sweep. A ticket opens
 * nothing for a holder who no longer stands, and a handshake whose `Origin` is neither the site's
 * nor the desktop console's (`app://renderer`), or that names none, is refused before the ticket is
 * spent. The rest of the chat's routes are in routes.ts.
 */
import { upgradeWebSocket } from '@hono/node-server';
import type { Context } from 'hono';
import { z } from 'zod';
import type { Env } from '../config/env.js';
import { HttpError } from '../http/envelope.js';
import { CROSS_SITE_REFUSED, isSiteOrigin, publicOrigin } from '../http/linkOrigin.js';
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

/**
 * The desktop console's origin (packages/admin-desktop: its renderer is `app://renderer`), the one
 * origin besides PUBLIC_URL's a socket may come from. The console's main process, which holds its
 * socket (main/chatLive.ts), names it in `Origin`: that is the console's documented form.
 */
export const DESKTOP_ORIGIN = 'app://renderer';

/**
 * Whether a WebSocket handshake may proceed: its `Origin` is PUBLIC_URL's or the desktop console's.
 * A browser always sends `Origin` on a WebSocket, so a page of another site is refused here
 * (cross-site WebSocket hijacking: it must not open a member's socket with a ticket it got hold
 * of). No `Origin` is refused too (issue 44): every client we ship names its origin (the web, the
 * console's main process, the benches), and a ticket replayed by a tool that names none (a URL
 * lifted from a log, curl) opens nothing. A script can still write any `Origin`: what bounds a
 * stolen ticket is that it is single use, valid 60 seconds, kept out of access logs and redeemed
 * only for a holder who still stands.
 */
export function socketOriginAllowed(origin: string | undefined, env: Pick<Env, 'PUBLIC_URL' | 'PORT'>): boolean {
  return origin !== undefined && (origin === DESKTOP_ORIGIN || isSiteOrigin(origin, publicOrigin(env)));
}

/**
 * Whether the ticket's holder may still read their chat: their session alive (logout, revocation,
 * erasure end it), their account not suspended or erased, and an admin's still an admin.
 */
export async function holderStands(ctx: AppContext, holder: TicketHolder): Promise<boolean> {
  if (holder.sessionId && (await sessionEnded(ctx.db, holder.sessionId, ctx.clock.now(), sessionLifetimes(ctx.env)))) return false;
  const standing = await findMemberStanding(ctx.db, holder.userId);
  return Boolean(standing) && standing?.status !== 'suspended' && (holder.role !== 'admin' || standing?.role === 'admin');
}

/**
 * The handshake check every ticketed WebSocket runs first (this chat's and a live show's room,
 * live/showChat.routes.ts), before its ticket is looked at: a plain GET is told to open a WebSocket
 * (426), and a handshake from an origin `socketOriginAllowed` refuses gets no upgrade (403).
 */
export function admitSocketHandshake(ctx: AppContext): (c: Pick<Context, 'req'>) => void {
  return (c) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw new HttpError('request.websocket_required', NOT_A_WEBSOCKET);
    if (!socketOriginAllowed(c.req.header('origin'), ctx.env)) throw new HttpError('request.cross_site', CROSS_SITE_REFUSED);
  };
}

/**
 * Redeems a socket's ticket for a holder who still stands (every ticketed WebSocket's): spent
 * either way, so a ticket taken before a suspension, erasure or sign-out opens nothing (401).
 */
export async function redeemStandingTicket(ctx: AppContext, ticket: string): Promise<TicketHolder> {
  const holder = await redeemTicket(ctx, ticket);
  if (!holder || !(await holderStands(ctx, holder))) throw new HttpError('chat.invalid_ticket', BAD_TICKET);
  return holder;
}

const socketQuery = z.object({
  ticket: z.string().min(1).max(100).describe('From POST /api/chat/ticket: single use, 60 seconds'),
  after: idSchema.optional().describe('Also send every message after this one first (resume after a reconnect)'),
});

/** The single-use ticket (its `query` is the route's: a malformed ticket or `after` is a 400 before the ticket is spent). */
function chatTicket(ctx: AppContext): Credential<TicketHolder, typeof socketQuery> {
  return {
    who: 'No token: a single-use ticket from POST /api/chat/ticket (`ticket`, 60 seconds) authorizes it.',
    query: socketQuery,
    verify: (_c, { query }) => redeemStandingTicket(ctx, query.ticket),
  };
}

const socketDoc = (ctx: AppContext, ticket: Credential<TicketHolder, typeof socketQuery>) =>
  describe({
    summary: 'The chat WebSocket',
    description:
      'Upgrade to a WebSocket with a ticket; the server pushes `{ "type": "message", "message": { id, text, from, sentAt, userId } }` for every new message of the conversation (every conversation for an admin). With `after`, the messages after that one come first (for an admin, those of every conversation). A plain GET is a 426; an `Origin` other than PUBLIC_URL\'s or the desktop console\'s (`app://renderer`), or none, a 403 before the ticket is looked at; a used, unknown or expired ticket, or one whose holder was since signed out, suspended or erased, a 401.',
    tags: ['chat'],
    access: { ticket },
    // A plain GET is told to open a WebSocket (426), and a foreign or missing Origin is refused (403), before the ticket is looked at.
    admit: admitSocketHandshake(ctx),
    query: socketQuery,
    errors: [401, 403, 426],
    responses: {
      '101': { description: 'Switching Protocols: the WebSocket is open; each push is a JSON text frame' },
      // Every answer but the upgrade is a refusal: OpenAPI has no success for a protocol switch, so the rest is `default`.
      default: { description: 'Any other answer is a refusal (the JSON error envelope): the socket is not opened' },
    },
  });

export const chatSocketRoutes: Routes = (api, ctx) => {
  const ticket = chatTicket(ctx);
  api.get('/chat/socket', socketDoc(ctx, ticket), async function chatSocket(c, next) {
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
    const holderGone = async () => !(await holderStands(ctx, holder));
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
        // A sign-out, suspension or erasure anywhere closes the socket now, not at the next push or sweep.
        const checkNow = () => {
          pushes = pushes
            .then(() => endIfGone().then(() => undefined))
            .catch((err) => ctx.logger.error({ err }, 'chat socket recheck failed'));
        };
        stopFollowing = live.follow(follow, (m) => (backlogDone ? send(m) : buffered.push(m)), {
          holderId: holder.userId,
          sessionsEnded: checkNow,
        });
        // A notice sent between the ticket's redemption and this follow would be missed: check once now.
        checkNow();
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
