/**
 * A live show's chat room (issue 43 item 4), beside the player:
 *
 *   GET    /live/shows/{id}/chat                          the room's recent messages (`after`: those after one)
 *   POST   /live/shows/{id}/chat                          post `{ text }` (rate-limited per member)
 *   GET    /live/shows/{id}/chat/socket?ticket=…          the room's WebSocket: every message and deletion, live
 *   DELETE /admin/live/shows/{id}/chat/{messageId}        staff (`live.chat`): remove a message
 *   POST   /admin/live/shows/{id}/chat/mutes              staff (`live.chat`): mute `{ userId }` for the show
 *   DELETE /admin/live/shows/{id}/chat/mutes/{userId}     staff (`live.chat`): unmute them
 *
 * Reading, posting and the socket take the show's §4 access decision (the videos' codes and messages,
 * as its stream does): who may not watch may not read or write. The socket is opened with the 1:1
 * chat's single-use ticket (`POST /api/chat/ticket`, chat/tickets.ts); the decision for the show the
 * path names is made when it is redeemed and again at every sweep, so a ticket never opens the room
 * of a show its holder may not watch. Use cases: showChat.service.ts; the push: showChat.live.ts.
 */

import { upgradeWebSocket } from '@hono/node-server';
import {
  multiLineText,
  SHOW_CHAT_MAX_LENGTH,
  showChatDeletedAnswerSchema,
  showChatMessageAnswerSchema,
  showChatMessagesAnswerSchema,
  showChatMutedAnswerSchema,
  showChatUnmutedAnswerSchema,
} from '@members/ui/api/schemas';
import { can } from '@members/ui/staffRoles';
import type { Context } from 'hono';
import { z } from 'zod';
import {
  admitSocketHandshake,
  holderStands,
  redeemStandingTicket,
  SESSION_ENDED_CLOSE,
  SOCKET_SESSION_RECHECK_MS,
  type TicketHolder,
} from '../chat/index.js';
import { createRateLimiter } from '../db/rateLimit.js';
import { geoCheckFor } from '../geo/index.js';
import { callerOf, staffRoleOf, userOf } from '../http/auth.js';
import { HttpError, ok, tooManyRequests, valueOr } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import { idParams, idSchema } from '../http/validate.js';
import { findMemberStanding } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { showViewingCredential } from './routes.js';
import { SHOW_NOT_FOUND } from './show.decider.js';
import { findShow } from './show.projection.js';
import { type ShowChatPush, showChatHubOf } from './showChat.live.js';
import { isMutedInShow, mutedInShow } from './showChat.projection.js';
import { deleteShowChatMessage, listShowChat, muteShowChatMember, postShowChatMessage, unmuteShowChatMember } from './showChat.service.js';
import { authorizeShowViewing } from './shows.service.js';

/** Messages a member may post per minute in show chat rooms (docs/live.md). */
export const SHOW_CHAT_RATE_LIMIT = 10;
export const SHOW_CHAT_RATE_LIMITED = 'You are sending messages too fast. Please wait a moment.';
/** The close code of a show chat socket whose holder may no longer watch the show (a lapsed plan, a blocked region). */
export const SHOW_CHAT_ACCESS_ENDED_CLOSE = 4403;

const textBody = z.object({
  // The text policy: line breaks kept, no control or direction characters.
  text: multiLineText({ min: 1, max: SHOW_CHAT_MAX_LENGTH, required: 'is required', empty: 'Message cannot be empty' }),
});
const pageQuery = z.object({
  after: idSchema.optional().describe('Messages posted after this one (to catch up after a reconnect)'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('At most this many of the newest (default 50, at most 100)'),
});
const messageParams = idParams.extend({ messageId: idSchema });
const muteBody = z.object({ userId: idSchema.describe('The member to mute for this show') });
const unmuteParams = idParams.extend({ userId: idSchema.describe('The member to unmute') });
const socketQuery = z.object({
  ticket: z.string().min(1).max(100).describe('From POST /api/chat/ticket: single use, 60 seconds'),
  after: idSchema.optional().describe('Also send every message of the room after this one first (resume after a reconnect)'),
});

export const showChatRoutes: Routes = (api, ctx) => {
  const perMember = createRateLimiter(ctx.db, 'live-chat-messages', SHOW_CHAT_RATE_LIMIT, 60_000, () => ctx.clock.now().getTime());
  const tags: ['live'] = ['live'];

  const viewing = showViewingCredential(ctx);

  const listDoc = describe({
    summary: "The show's chat room: its newest messages, oldest first",
    description:
      'For a viewer the access decision allows (spec §4: 401 not signed in, 403 with the reason, 404 unknown show). Authors are display names only. `after` catches up after a reconnect. `muted`: staff muted the caller in this room (their posts are refused until unmuted); `mutedMembers` (staff with `live.chat` only): the ids of the members muted in it.',
    tags,
    access: { decision: viewing },
    params: idParams,
    query: pageQuery,
    ok: { 200: showChatMessagesAnswerSchema },
    errors: [404],
  });
  api.get('/live/shows/:id/chat', listDoc, async function showChatMessages(c) {
    const { show, viewer } = grantOf(c, viewing);
    c.header('Cache-Control', 'private, no-store');
    const messages = valueOr(await listShowChat(ctx, show.id, c.req.valid('query')));
    const role = staffRoleOf(viewer);
    // Who is muted is staff's to know (the Unmute beside them), never the room's.
    const moderates = role !== null && can(role, 'live.chat');
    return ok(c, {
      messages,
      muted: await isMutedInShow(ctx.db, show.id, viewer.id),
      ...(moderates ? { mutedMembers: await mutedInShow(ctx.db, show.id) } : {}),
    });
  });

  const postDoc = describe({
    summary: "Post a message in the show's chat room",
    description: `Text only (rendered as text, never HTML), trimmed, 1 to ${SHOW_CHAT_MAX_LENGTH} characters, at most ${SHOW_CHAT_RATE_LIMIT} a minute (429). For a viewer the access decision allows (403 with its reason otherwise); 403 \`live.chat_muted\` when staff muted the member for the show; 409 \`live.chat_closed\` once the show ended. Every socket of the room gets it.`,
    tags,
    access: { decision: viewing },
    params: idParams,
    body: textBody,
    ok: { 201: showChatMessageAnswerSchema },
    errors: [404, 409, 429],
  });
  api.post('/live/shows/:id/chat', postDoc, async function postShowChat(c) {
    const { show, viewer } = grantOf(c, viewing);
    const { text } = c.req.valid('json');
    if (!(await perMember.hit(viewer.id))) {
      const window = await perMember.peek(viewer.id);
      throw tooManyRequests(SHOW_CHAT_RATE_LIMITED, window ? (window.resetAt - ctx.clock.now().getTime()) / 1000 : 60);
    }
    const caller = { actorId: viewer.id, requestId: c.get('requestId') };
    return ok(c, { message: valueOr(await postShowChatMessage(ctx, show, viewer, text, caller)) }, 201);
  });

  const deleteDoc = describe({
    summary: "Remove a message from the show's chat room",
    description:
      'Every socket of the room is told (`{ "type": "deleted", messageId }`). The sealed event stays until an erasure shreds it.',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'live.chat',
    params: messageParams,
    ok: { 200: showChatDeletedAnswerSchema },
    errors: [404],
  });
  api.delete('/admin/live/shows/:id/chat/:messageId', deleteDoc, async function deleteShowChat(c) {
    const { id, messageId } = c.req.valid('param');
    return ok(c, valueOr(await deleteShowChatMessage(ctx, { showId: id, messageId, staffId: userOf(c).id }, callerOf(c))));
  });

  const muteDoc = describe({
    summary: "Mute a member in the show's chat room (for this show)",
    description:
      'Their next message in this room is refused (403 `live.chat_muted`); what they wrote stays unless deleted. Muting twice changes nothing.',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'live.chat',
    params: idParams,
    body: muteBody,
    ok: { 200: showChatMutedAnswerSchema },
    errors: [404],
  });
  api.post('/admin/live/shows/:id/chat/mutes', muteDoc, async function muteShowChat(c) {
    const { id } = c.req.valid('param');
    const { userId } = c.req.valid('json');
    if (!(await findShow(ctx.db, id))) throw new HttpError('live.show_not_found', SHOW_NOT_FOUND);
    if (!(await findMemberStanding(ctx.db, userId))) throw new HttpError('live.chat_member_not_found', 'Member not found');
    return ok(c, valueOr(await muteShowChatMember(ctx, { showId: id, userId, staffId: userOf(c).id }, callerOf(c))));
  });

  const unmuteDoc = describe({
    summary: "Unmute a member in the show's chat room",
    description: 'They may post in this room again. Unmuting a member who is not muted changes nothing (200).',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'live.chat',
    params: unmuteParams,
    ok: { 200: showChatUnmutedAnswerSchema },
    errors: [404],
  });
  api.delete('/admin/live/shows/:id/chat/mutes/:userId', unmuteDoc, async function unmuteShowChat(c) {
    const { id, userId } = c.req.valid('param');
    if (!(await findShow(ctx.db, id))) throw new HttpError('live.show_not_found', SHOW_NOT_FOUND);
    if (!(await findMemberStanding(ctx.db, userId))) throw new HttpError('live.chat_member_not_found', 'Member not found');
    return ok(c, valueOr(await unmuteShowChatMember(ctx, { showId: id, userId, staffId: userOf(c).id }, callerOf(c))));
  });

  socketRoute(api, ctx);
};

interface RoomTicket {
  holder: TicketHolder;
  showId: string;
}

function socketRoute(api: Parameters<Routes>[0], ctx: AppContext) {
  /** The single-use ticket, and the decision for the show the path names (spent either way). */
  const ticket: Credential<RoomTicket, typeof socketQuery> = {
    who: 'No token: a single-use ticket from POST /api/chat/ticket (`ticket`, 60 seconds), whose holder the access decision of spec §4 allows for the show.',
    query: socketQuery,
    async verify(c, { param, query }) {
      const holder = await redeemStandingTicket(ctx, query.ticket);
      const showId = String(param.id);
      valueOr(await authorizeShowViewing(ctx, { showId, userId: holder.userId, regionBlocked: geoCheckFor(c, ctx).blocked }));
      return { holder, showId };
    },
  };
  const socketDoc = describe({
    summary: "The show's chat room WebSocket",
    description:
      'Upgrade with a ticket from POST /api/chat/ticket; the server pushes `{ "type": "message", "message": { id, showId, authorId, author, text, postedAt } }` for every message of the room and `{ "type": "deleted", "showId", "messageId" }` when staff remove one; `{ "type": "muted" | "unmuted", "showId", "userId" }` goes to the sockets of that member only. With `after`, the messages after that one come first. A plain GET is a 426; an `Origin` other than the site\'s or the desktop console\'s (`app://renderer`), or none, a 403 before the ticket is looked at; a used, unknown or expired ticket a 401; a holder the access decision refuses for this show its 403 (the ticket is spent). The socket closes (4403) when the decision later refuses, 4401 when the session ends.',
    tags: ['live'],
    access: { ticket },
    // The 1:1 chat's handshake check: 426 for a plain GET, 403 for a foreign Origin, before the ticket is spent.
    admit: admitSocketHandshake(ctx),
    params: idParams,
    query: socketQuery,
    errors: [401, 403, 404, 426],
    responses: {
      '101': { description: 'Switching Protocols: the WebSocket is open; each push is a JSON text frame' },
      default: { description: 'Any other answer is a refusal (the JSON error envelope): the socket is not opened' },
    },
  });

  api.get('/live/shows/:id/chat/socket', socketDoc, async function showChatSocket(c, next) {
    const { after } = c.req.valid('query');
    const { holder, showId } = grantOf(c, ticket);
    const hub = await showChatHubOf(ctx);
    let stopFollowing: (() => void) | undefined;
    let recheck: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      stopFollowing?.();
      if (recheck) clearInterval(recheck);
    };
    const upgrade = upgradeWebSocket(() => ({
      async onOpen(_evt, ws) {
        let closed = false;
        /** The socket lives no longer than its session, its holder's standing and the show's decision for them. */
        const endIfRefused = async () => {
          if (closed) return;
          let code = 0;
          if (!(await holderStands(ctx, holder))) code = SESSION_ENDED_CLOSE;
          else if (!(await authorizeShowViewing(ctx, { showId, userId: holder.userId, regionBlocked: false })).ok)
            code = SHOW_CHAT_ACCESS_ENDED_CLOSE;
          if (!code || closed) return;
          closed = true;
          stop();
          ws.close(code, code === SESSION_ENDED_CLOSE ? 'session ended' : 'access ended');
        };
        recheck = setInterval(
          () => void endIfRefused().catch((err) => ctx.logger.error({ err }, 'show chat socket recheck failed')),
          SOCKET_SESSION_RECHECK_MS,
        );
        recheck.unref?.();
        const sent = new Set<string>();
        const send = (change: ShowChatPush) => {
          if (closed) return;
          // Who is muted is told to that member alone (their notice in the room), never to the room.
          if ((change.type === 'muted' || change.type === 'unmuted') && change.userId !== holder.userId) return;
          if (change.type === 'message') {
            if (sent.has(change.message.id)) return;
            sent.add(change.message.id);
          }
          ws.send(JSON.stringify(change));
        };
        // Live first (buffered while the backlog goes out), so nothing falls between the two.
        let backlogDone = false;
        const buffered: ShowChatPush[] = [];
        // A sign-out, suspension or erasure anywhere closes the socket now, not at the next sweep.
        const checkNow = () => void endIfRefused().catch((err) => ctx.logger.error({ err }, 'show chat socket recheck failed'));
        stopFollowing = hub.follow(showId, (change) => (backlogDone ? send(change) : buffered.push(change)), {
          holderId: holder.userId,
          sessionsEnded: checkNow,
        });
        // A notice sent between the ticket's redemption and this follow would be missed: check once now.
        checkNow();
        try {
          if (after) {
            const missed = await listShowChat(ctx, showId, { after, limit: 100 });
            if (missed.ok) for (const message of missed.value) send({ type: 'message', message });
          }
        } catch (err) {
          ctx.logger.error({ err }, 'show chat socket backlog failed');
          ws.close(1011, 'backlog failed');
        } finally {
          backlogDone = true;
          for (const change of buffered) send(change);
        }
      },
      onClose() {
        stop();
      },
      onError() {
        stop();
      },
    }));
    return upgrade(c as unknown as Context, next);
  });
}
