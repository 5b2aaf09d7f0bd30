/**
 * The member's side of the chat over HTTP (issue 30; the paths and shapes are fixed there,
 * docs/chat.md explains them): `/chat/*` (send, page, mark read, delete, status, ticket). The team's
 * `/admin/chat/conversations…` are in adminChat.routes.ts, the WebSocket `/chat/socket?ticket=…` in
 * socket.routes.ts. Use cases: chat.service.ts.
 */
import {
  CHAT_MAX_LENGTH,
  chatDeletedAnswerSchema,
  chatMessageAnswerSchema,
  chatMessagesAnswerSchema,
  chatReadAnswerSchema,
  chatStatusSchema,
  chatTicketAnswerSchema,
  multiLineText,
} from '@members/ui/api/schemas';
import { z } from 'zod';
import { createRateLimiter } from '../db/rateLimit.js';
import { callerOf, staffWith, userOf } from '../http/auth.js';
import { ok, tooManyRequests, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idSchema } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { chatStatus, deleteMessage, listMessages, markRead, sendAsMember } from './chat.service.js';
import { markSeen } from './presence.js';
import { issueTicket } from './tickets.js';

/** Messages a member may send per minute (docs/chat.md). */
export const CHAT_RATE_LIMIT = 20;
export const CHAT_RATE_LIMITED = 'Too many messages. Please wait a minute before sending more.';

export const textSchema = z.object({
  // The text policy (member and admin alike): line breaks kept, no control or direction characters.
  text: multiLineText({ min: 1, max: CHAT_MAX_LENGTH, required: 'is required', empty: 'Message cannot be empty' }),
});
export const pageQuery = z.object({
  before: idSchema.optional().describe('Messages sent before this one (the newest `limit` of them)'),
  after: idSchema.optional().describe('Messages sent after this one (to catch up after a reconnect)'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('At most this many (default 50, at most 100)'),
});
const messageParams = z.object({ id: idSchema });

export { BAD_TICKET, NOT_A_WEBSOCKET, SESSION_ENDED_CLOSE, SOCKET_SESSION_RECHECK_MS } from './socket.routes.js';

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
      'Browsers cannot send a bearer token on a WebSocket: open `GET /api/chat/socket?ticket=…` with this within 60 seconds; it works once. A member follows their conversation, an admin every conversation: a staff member only with the `chat` permission (else 403 `auth.permission_required`).',
    tags,
    access: 'member',
    // An admin's ticket follows every conversation: only a staff role with `chat` gets one.
    admit: (c) => (userOf(c).role === 'admin' ? staffWith('chat', userOf(c)) : undefined),
    ok: { 200: chatTicketAnswerSchema },
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
};
