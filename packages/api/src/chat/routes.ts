/**
 * The chat over HTTP (issue 30; the paths and shapes are fixed there, docs/chat.md explains them):
 * the member's `/chat/*` (send, page, mark read, delete, status, ticket) and the WebSocket
 * `/chat/socket?ticket=…`; the team's `/admin/chat/conversations…`. Use cases: chat.service.ts.
 */
import { upgradeWebSocket } from '@hono/node-server';
import {
  CHAT_MAX_LENGTH,
  chatConversationsAnswerSchema,
  chatDeletedAnswerSchema,
  chatMessageAnswerSchema,
  chatMessagesAnswerSchema,
  chatReadAnswerSchema,
  chatStatusSchema,
  chatTicketAnswerSchema,
} from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { z } from 'zod';
import { createRateLimiter } from '../db/rateLimit.js';
import { callerOf, userOf } from '../http/auth.js';
import { HttpError, ok, tooManyRequests, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idSchema } from '../http/validate.js';
import { findMemberStanding, sessionEnded } from '../identity/index.js';
import type { Routes } from '../module.js';
import {
  chatStatus,
  conversations,
  deleteMessage,
  listMessages,
  markRead,
  messagesAfterInAll,
  sendAsMember,
  sendMessage,
} from './chat.service.js';
import { chatHubOf, type LiveMessage } from './live.js';
import { markSeen } from './presence.js';
import { issueTicket, redeemTicket } from './tickets.js';

/** Messages a member may send per minute (docs/chat.md). */
export const CHAT_RATE_LIMIT = 20;
export const CHAT_RATE_LIMITED = 'Too many messages. Please wait a minute before sending more.';
export const BAD_TICKET = 'This chat ticket is invalid, used or expired. Ask for a new one.';
export const NOT_A_WEBSOCKET = 'Open this address as a WebSocket';
/** How often an idle socket checks that its session still stands (a push checks it at once). */
export const SOCKET_SESSION_RECHECK_MS = 30_000;
/** The close code of a socket whose session ended (logout, revocation, suspension, erasure). */
export const SESSION_ENDED_CLOSE = 4401;

const textSchema = z.object({
  text: z
    .string({ error: 'is required' })
    .trim()
    .min(1, 'Message cannot be empty')
    .max(CHAT_MAX_LENGTH, `must be at most ${CHAT_MAX_LENGTH} characters`),
});
const pageQuery = z.object({
  before: idSchema.optional().describe('Messages sent before this one (the newest `limit` of them)'),
  after: idSchema.optional().describe('Messages sent after this one (to catch up after a reconnect)'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('At most this many (default 50, at most 100)'),
});
const socketQuery = z.object({
  ticket: z.string().min(1).max(100).describe('From POST /api/chat/ticket: single use, 60 seconds'),
  after: idSchema.optional().describe('Also send every message after this one first (resume after a reconnect)'),
});
const userParams = z.object({ userId: idSchema });
const messageParams = z.object({ id: idSchema });

export const chatRoutes: Routes = (api, ctx) => {
  const perMember = createRateLimiter(ctx.db, 'chat-messages', CHAT_RATE_LIMIT, 60_000, () => ctx.clock.now().getTime());
  const tags: ['chat'] = ['chat'];

  const sendDoc = describe({
    summary: 'Send a message to the team',
    description: `Text only (rendered as text, never HTML), trimmed, 1 to ${CHAT_MAX_LENGTH} characters, at most ${CHAT_RATE_LIMIT} a minute. Needs an approved account with an active subscription (403 with the reason otherwise). Stored before the 201.`,
    tags,
    access: 'member',
    body: textSchema,
    ok: { 201: chatMessageAnswerSchema },
    errors: [429],
  });
  const listDoc = describe({
    summary: 'My conversation with the team, oldest first',
    description: 'Everyone keeps reading their history, subscribed or not. `before` pages back; `after` catches up.',
    tags,
    access: 'member',
    query: pageQuery,
    ok: { 200: chatMessagesAnswerSchema },
    errors: [404],
  });
  const statusDoc = describe({
    summary: 'May I write, and how many replies are unread',
    tags,
    access: 'member',
    ok: { 200: chatStatusSchema },
  });
  const readDoc = describe({
    summary: "Mark the team's replies read",
    tags,
    access: 'member',
    ok: { 200: chatReadAnswerSchema },
  });
  const deleteDoc = describe({
    summary: 'Delete one of my messages',
    description: 'Its text leaves the conversation (the sealed event stays until an erasure shreds it).',
    tags,
    access: 'member',
    params: messageParams,
    ok: { 200: chatDeletedAnswerSchema },
    errors: [404],
  });
  const ticketDoc = describe({
    summary: 'A ticket for the chat WebSocket',
    description:
      'Browsers cannot send a bearer token on a WebSocket: open `GET /api/chat/socket?ticket=…` with this within 60 seconds; it works once. A member follows their conversation, an admin every conversation.',
    tags,
    access: 'member',
    ok: { 200: chatTicketAnswerSchema },
  });
  const socketDoc = describe({
    summary: 'The chat WebSocket',
    description:
      'Upgrade to a WebSocket with a ticket; the server pushes `{ "type": "message", "message": { id, text, from, sentAt, userId } }` for every new message of the conversation (every conversation for an admin). With `after`, the messages after that one come first (for an admin, those of every conversation). A plain GET is a 426; a used, unknown or expired ticket a 401.',
    tags,
    access: 'public',
    // A plain GET is told to open a WebSocket (426) before its ticket is looked at.
    admit: (c) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw new HttpError('request.websocket_required', NOT_A_WEBSOCKET);
    },
    query: socketQuery,
    errors: [401, 426],
    responses: { '101': { description: 'Switching Protocols: the WebSocket is open; each push is a JSON text frame' } },
  });
  const adminListDoc = describe({
    summary: 'The chat inbox: VIP (annual) conversations first, then the longest waiting',
    tags,
    access: 'admin',
    ok: { 200: chatConversationsAnswerSchema },
  });
  const adminMessagesDoc = describe({
    summary: "A member's conversation, oldest first",
    tags,
    access: 'admin',
    params: userParams,
    query: pageQuery,
    ok: { 200: chatMessagesAnswerSchema },
    errors: [404],
  });
  const adminReplyDoc = describe({
    summary: 'Reply to a member',
    tags,
    access: 'admin',
    params: userParams,
    body: textSchema,
    ok: { 201: chatMessageAnswerSchema },
    errors: [404],
  });
  const adminDeleteDoc = describe({
    summary: "Delete a message of a member's conversation (either side's)",
    description: 'Its text leaves the conversation for both sides (the sealed event stays until an erasure shreds it).',
    tags,
    access: 'admin',
    params: userParams.extend({ id: idSchema }),
    ok: { 200: chatDeletedAnswerSchema },
    errors: [404],
  });
  const adminReadDoc = describe({
    summary: "Mark a member's messages read",
    tags,
    access: 'admin',
    params: userParams,
    ok: { 200: chatReadAnswerSchema },
    errors: [404],
  });

  api.get('/chat/messages', listDoc, async function ownMessages(c) {
    return ok(c, { messages: valueOr(await listMessages(ctx, userOf(c).id, c.req.valid('query'))) });
  });

  api.post('/chat/messages', sendDoc, async function sendOwnMessage(c) {
    const user = userOf(c);
    const { text } = c.req.valid('json');
    if (!(await perMember.hit(user.id))) {
      const window = await perMember.peek(user.id);
      throw tooManyRequests(CHAT_RATE_LIMITED, window ? (window.resetAt - ctx.clock.now().getTime()) / 1000 : 60);
    }
    return ok(c, { message: valueOr(await sendAsMember(ctx, user, text, callerOf(c))) }, 201);
  });

  api.get('/chat/status', statusDoc, async function ownChatStatus(c) {
    const user = userOf(c);
    // The unread badge asks this: the member is online (no reply mail for what it shows them).
    await markSeen(ctx.db, user.id, ctx.clock.now());
    return ok(c, await chatStatus(ctx, user));
  });

  api.post('/chat/read', readDoc, async function readReplies(c) {
    const user = userOf(c);
    return ok(c, { read: valueOr(await markRead(ctx, user.id, 'member', user.id, callerOf(c))) });
  });

  api.delete('/chat/messages/:id', deleteDoc, async function deleteOwnMessage(c) {
    const user = userOf(c);
    const messageId = c.req.valid('param').id;
    return ok(c, valueOr(await deleteMessage(ctx, { userId: user.id, messageId, by: 'member', actorId: user.id }, callerOf(c))));
  });

  api.post('/chat/ticket', ticketDoc, async function chatTicket(c) {
    const user = userOf(c);
    const sessionId = c.get('auth')?.sessionId;
    return ok(c, await issueTicket(ctx, { userId: user.id, role: user.role === 'admin' ? 'admin' : 'member', sessionId }));
  });

  api.get('/chat/socket', socketDoc, async function chatSocket(c, next) {
    const { ticket, after } = c.req.valid('query');
    const holder = await redeemTicket(ctx, ticket);
    if (!holder) throw new HttpError('chat.invalid_ticket', BAD_TICKET);
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
      if (holder?.sessionId && (await sessionEnded(ctx.db, holder.sessionId))) return true;
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

  api.get('/admin/chat/conversations', adminListDoc, async function chatInbox(c) {
    return ok(c, { conversations: await conversations(ctx) });
  });

  /** The member of `:userId`, who must exist (an admin's own id is not a conversation). */
  async function memberOf(userId: string): Promise<string> {
    // identity's read port: an erased member has no standing.
    const standing = await findMemberStanding(ctx.db, userId);
    if (standing?.role !== 'member') throw new HttpError('chat.member_not_found', 'Member not found');
    return userId;
  }

  api.get('/admin/chat/conversations/:userId/messages', adminMessagesDoc, async function memberConversation(c) {
    const userId = await memberOf(c.req.valid('param').userId);
    return ok(c, { messages: valueOr(await listMessages(ctx, userId, c.req.valid('query'))) });
  });

  api.post('/admin/chat/conversations/:userId/messages', adminReplyDoc, async function replyToMember(c) {
    const userId = await memberOf(c.req.valid('param').userId);
    const { text } = c.req.valid('json');
    return ok(c, { message: valueOr(await sendMessage(ctx, { userId, from: 'admin', authorId: userOf(c).id, text }, callerOf(c))) }, 201);
  });

  api.delete('/admin/chat/conversations/:userId/messages/:id', adminDeleteDoc, async function deleteMemberMessage(c) {
    const params = c.req.valid('param');
    const userId = await memberOf(params.userId);
    const caller = callerOf(c);
    return ok(c, valueOr(await deleteMessage(ctx, { userId, messageId: params.id, by: 'admin', actorId: caller.actorId }, caller)));
  });

  api.post('/admin/chat/conversations/:userId/read', adminReadDoc, async function readMemberMessages(c) {
    const userId = await memberOf(c.req.valid('param').userId);
    const caller = callerOf(c);
    return ok(c, { read: valueOr(await markRead(ctx, userId, 'admin', caller.actorId, caller)) });
  });
};
