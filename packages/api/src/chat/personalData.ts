/**
 * The chat's part of a member's data export (AppModule.exportPersonalData; the privacy module runs
 * it): their conversation with the team, both sides, as it reads now (deleted messages are gone),
 * and their reply-mail setting. An erasure needs nothing here: the projection blanks the member's
 * messages on `MemberErased`, and their text is sealed under the key it destroys.
 */
import type { AppContext } from '../kernel/context.js';
import type { MemberExport } from '../kernel/module.js';
import { replyMailEnabled } from './replyMail.routes.js';

export async function exportChatData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const chat = await ctx.db.all<{ id: string; sender: string; text: string; sent_at: string }>(
    'SELECT id, sender, text, sent_at FROM chat_messages WHERE user_id = ? AND deleted_at IS NULL ORDER BY position',
    [userId],
  );
  return {
    chatMessages: chat.map((m) => ({ id: m.id, from: m.sender, text: m.text, sentAt: m.sent_at })),
    notifications: { chatReplyMail: await replyMailEnabled(ctx, userId) },
  };
}
