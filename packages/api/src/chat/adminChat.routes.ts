/**
 * The team's side of the chat (spec §9): the inbox (VIP conversations first, then the longest
 * waiting), a member's conversation, replies, deletions and read marks. Admins only; the member's
 * side is routes.ts, the WebSocket socket.routes.ts.
 */
import {
  chatConversationsAnswerSchema,
  chatDeletedAnswerSchema,
  chatMessageAnswerSchema,
  chatMessagesAnswerSchema,
  chatReadAnswerSchema,
} from '@members/ui/api/schemas';
import { z } from 'zod';
import { callerOf, userOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idSchema } from '../http/validate.js';
import { findMemberStanding } from '../identity/index.js';
import type { Routes } from '../kernel/module.js';
import { conversations, deleteMessage, listMessages, markRead, sendMessage } from './chat.service.js';
import { pageQuery, textSchema } from './routes.js';

const userParams = z.object({ userId: idSchema });

export const adminChatRoutes: Routes = (api, ctx) => {
  const tags: ['chat'] = ['chat'];
  const adminListDoc = describe({
    summary: 'The chat inbox: VIP (annual) conversations first, then the longest waiting',
    tags,
    access: 'admin',
    permission: 'chat',
    ok: { 200: chatConversationsAnswerSchema },
  });
  const adminMessagesDoc = describe({
    summary: "A member's conversation, oldest first",
    tags,
    access: 'admin',
    permission: 'chat',
    params: userParams,
    query: pageQuery,
    ok: { 200: chatMessagesAnswerSchema },
    errors: [404],
  });
  const adminReplyDoc = describe({
    summary: 'Reply to a member',
    tags,
    access: 'admin',
    permission: 'chat',
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
    permission: 'chat',
    params: userParams.extend({ id: idSchema }),
    ok: { 200: chatDeletedAnswerSchema },
    errors: [404],
  });
  const adminReadDoc = describe({
    summary: "Mark a member's messages read",
    tags,
    access: 'admin',
    permission: 'chat',
    params: userParams,
    ok: { 200: chatReadAnswerSchema },
    errors: [404],
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
