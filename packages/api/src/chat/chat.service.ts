/**
 * The chat's use cases, for the routes (chat/routes.ts) and tests: send, page through, mark read,
 * delete; the admin inbox. Who may write is the shared `chatAccess` decision (approved, with an
 * active subscription); reading one's own history needs neither.
 *
 * A message is appended (and projected, in the same transaction) before the caller gets its 201,
 * so a process killed after answering loses nothing. On PostgreSQL the append's transaction also
 * sends `NOTIFY members_chat, '<message id>'`, delivered to every API process at commit
 * (chat/live.ts reads the row and pushes it to the sockets it holds).
 */
import { chatAccess } from '@members/ui/access';
import type { chatConversationSchema, chatMessageSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { subscriptionOf, subscriptionsOf } from '../billing/index.js';
import { aggregate } from '../eventstore/commandHandler.js';
import { type MemberStanding, usersByIds } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type ChatCommand, type ChatSide, chatDecider, chatStream } from './chat.decider.js';
import type { ChatMessageRow } from './chat.projection.js';

/** The conversation aggregate: `chats(ctx.store).handle(userId, command, metadata)`. */
export const chats = aggregate(chatDecider, chatStream);

export const CHAT_CHANNEL = 'members_chat';
export const MAX_PAGE = 100;

export type ChatMessageDto = z.infer<typeof chatMessageSchema>;
export type ChatConversationDto = z.infer<typeof chatConversationSchema>;

export const messageDto = (row: ChatMessageRow): ChatMessageDto => ({ id: row.id, text: row.text, from: row.sender, sentAt: row.sent_at });

export function messageById(ctx: Pick<AppContext, 'db'>, id: string): Promise<ChatMessageRow | undefined> {
  return ctx.db.get<ChatMessageRow>('SELECT * FROM chat_messages WHERE id = ?', [id]);
}

/** Accepts a message into the conversation of `userId` (the member), from the member or an admin. */
export async function sendMessage(
  ctx: AppContext,
  input: { userId: string; from: ChatSide; authorId: string; text: string },
  caller: Caller,
): Promise<Result<ChatMessageDto>> {
  const command: ChatCommand = {
    type: 'SendChatMessage',
    messageId: ctx.ids.next(),
    ...input,
    now: ctx.clock.now().toISOString(),
  };
  // Sending depends on nothing earlier in the conversation (a fresh id), so the stream is not read
  // and folded for it: a long conversation costs a send nothing.
  const decided = chatDecider.decide(command, chatDecider.initialState());
  if (!decided.ok) return decided;
  await ctx.store.append(chatStream(input.userId), decided.events, {
    expectedVersion: 'any',
    metadata: eventMetadata(ctx, caller),
    inTransaction:
      ctx.db.dialect === 'postgres'
        ? async (tx) => {
            await tx.get('SELECT pg_notify(?, ?)', [CHAT_CHANNEL, command.messageId]);
          }
        : undefined,
  });
  const row = await messageById(ctx, command.messageId);
  if (!row) throw new Error(`chat message ${command.messageId} was appended but not projected`);
  return success(messageDto(row));
}

/** The member's own message; refused with the access decision's words when they may not write. */
export async function sendAsMember(ctx: AppContext, user: MemberStanding, text: string, caller: Caller): Promise<Result<ChatMessageDto>> {
  const access = chatAccess({
    approved: user.approved,
    status: user.status,
    membershipStatus: user.membership_status,
    subscriptionStatus: user.subscription_status,
  });
  if (!access.allowed) return failure('chat.access_denied', access.message);
  return sendMessage(ctx, { userId: user.id, from: 'member', authorId: user.id, text }, caller);
}

/** A page of the conversation, oldest first: the newest `limit` before `before`, or everything after `after`. */
export async function listMessages(
  ctx: AppContext,
  userId: string,
  page: { before?: string | undefined; after?: string | undefined; limit?: number | undefined },
): Promise<Result<ChatMessageDto[]>> {
  const limit = Math.min(page.limit ?? 50, MAX_PAGE);
  const anchor = async (id: string) => {
    const row = await messageById(ctx, id);
    return row && row.user_id === userId ? Number(row.position) : undefined;
  };
  if (page.after !== undefined) {
    const after = await anchor(page.after);
    if (after === undefined) return failure('chat.message_not_found', 'Message not found');
    const rows = await ctx.db.all<ChatMessageRow>(
      'SELECT * FROM chat_messages WHERE user_id = ? AND deleted_at IS NULL AND position > ? ORDER BY position LIMIT ?',
      [userId, after, limit],
    );
    return success(rows.map(messageDto));
  }
  let before = Number.MAX_SAFE_INTEGER;
  if (page.before !== undefined) {
    const p = await anchor(page.before);
    if (p === undefined) return failure('chat.message_not_found', 'Message not found');
    before = p;
  }
  const rows = await ctx.db.all<ChatMessageRow>(
    'SELECT * FROM chat_messages WHERE user_id = ? AND deleted_at IS NULL AND position < ? ORDER BY position DESC LIMIT ?',
    [userId, before, limit],
  );
  return success(rows.reverse().map(messageDto));
}

/**
 * Every conversation's messages after `after` (any conversation's message id), oldest first: what
 * an admin's socket that reconnects missed (an admin follows every conversation).
 */
export async function messagesAfterInAll(
  ctx: AppContext,
  after: string,
  limit: number = MAX_PAGE,
): Promise<Result<(ChatMessageDto & { userId: string })[]>> {
  const anchor = await messageById(ctx, after);
  if (!anchor) return failure('chat.message_not_found', 'Message not found');
  const rows = await ctx.db.all<ChatMessageRow>(
    'SELECT * FROM chat_messages WHERE deleted_at IS NULL AND position > ? ORDER BY position LIMIT ?',
    [Number(anchor.position), Math.min(limit, MAX_PAGE)],
  );
  return success(rows.map((r) => ({ ...messageDto(r), userId: r.user_id })));
}

/** Marks the other side's messages read by `reader`; answers how many were unread. */
export async function markRead(
  ctx: AppContext,
  userId: string,
  reader: ChatSide,
  readerId: string,
  caller: Caller,
): Promise<Result<number>> {
  const column = reader === 'member' ? 'member_unread' : 'admin_unread';
  const before = await ctx.db.get<{ n: number }>(`SELECT ${column} AS n FROM chat_conversations WHERE user_id = ?`, [userId]);
  if (!before || Number(before.n) === 0) return success(0);
  const r = await chats(ctx.store).handle(
    userId,
    { type: 'MarkChatRead', userId, reader, readerId, now: ctx.clock.now().toISOString() },
    eventMetadata(ctx, caller),
  );
  if (!r.ok) return r;
  return success(Number(before.n));
}

export async function deleteMessage(
  ctx: AppContext,
  input: { userId: string; messageId: string; by: ChatSide; actorId: string },
  caller: Caller,
): Promise<Result<{ deleted: true }>> {
  const row = await messageById(ctx, input.messageId);
  if (!row || row.user_id !== input.userId || row.deleted_at) return failure('chat.message_not_found', 'Message not found');
  const r = await chats(ctx.store).handle(
    input.userId,
    { type: 'DeleteChatMessage', ...input, now: ctx.clock.now().toISOString() },
    eventMetadata(ctx, caller),
  );
  if (!r.ok) return r;
  return success({ deleted: true });
}

/** The member's own chat status: may they write (and why not), unread replies, VIP (annual plan). */
export async function chatStatus(ctx: AppContext, user: MemberStanding) {
  const access = chatAccess({
    approved: user.approved,
    status: user.status,
    membershipStatus: user.membership_status,
    subscriptionStatus: user.subscription_status,
  });
  const conv = await ctx.db.get<{ member_unread: number }>('SELECT member_unread FROM chat_conversations WHERE user_id = ?', [user.id]);
  const sub = await subscriptionOf(ctx.db, user.id);
  return {
    canWrite: access.allowed,
    reason: access.message,
    unread: Number(conv?.member_unread ?? 0),
    vip: access.allowed && sub?.plan_type === 'annual',
  };
}

/**
 * The admin inbox: every conversation, VIP first (an annual plan with an active membership: spec §9
 * "VIP chat priority"), then the longest waiting (oldest unanswered member message), then the most
 * recent. Conversations of erased members are left out.
 */
export async function conversations(ctx: AppContext): Promise<ChatConversationDto[]> {
  const rows = await ctx.db.all<{ user_id: string; admin_unread: number; waiting_since: string | null; last_message_at: string }>(
    'SELECT user_id, admin_unread, waiting_since, last_message_at FROM chat_conversations',
  );
  const ids = rows.map((r) => r.user_id);
  const [members, subscriptions] = await Promise.all([usersByIds(ctx.db, ids), subscriptionsOf(ctx.db, ids)]);
  const out = rows.flatMap((r): ChatConversationDto[] => {
    const m = members.get(r.user_id);
    if (!m || m.erased_at) return [];
    const plan = subscriptions.get(r.user_id)?.plan_type;
    return [
      {
        userId: r.user_id,
        displayName: `${m.first_name} ${m.last_name}`.trim(),
        plan: plan === 'monthly' || plan === 'annual' ? plan : null,
        vip: plan === 'annual' && m.membership_status === 'active',
        unread: Number(r.admin_unread),
        waitingSince: r.waiting_since,
        lastMessageAt: r.last_message_at,
      },
    ];
  });
  return out.sort(
    (a, b) =>
      Number(b.vip) - Number(a.vip) ||
      (a.waitingSince ?? '\uffff').localeCompare(b.waitingSince ?? '\uffff') ||
      b.lastMessageAt.localeCompare(a.lastMessageAt) ||
      a.userId.localeCompare(b.userId),
  );
}
