/**
 * The member's setting for the reply mail (replyMail.ts), an account setting:
 * `GET /users/me/notifications` and `PUT /users/me/notifications` `{ chatReplyMail }`. The choice is
 * an event on the member's chat stream (`ChatReplyMailSet`); on unless turned off.
 */
import { notificationSettingsSchema } from '@members/ui/api/schemas';
import { z } from 'zod';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { type Result, success } from '../shared/result.js';
import { chats } from './chat.service.js';

const settingsBody = z.object({ chatReplyMail: z.boolean({ error: 'must be true or false' }) }).strict();

/** The member's reply mail setting (no row: on). */
export async function replyMailEnabled(ctx: Pick<AppContext, 'db'>, userId: string): Promise<boolean> {
  const row = await ctx.db.get<{ enabled: number }>('SELECT enabled FROM chat_reply_mail WHERE user_id = ?', [userId]);
  return row ? Number(row.enabled) === 1 : true;
}

export async function setReplyMail(ctx: AppContext, userId: string, enabled: boolean, caller: Caller): Promise<Result<boolean>> {
  const r = await chats(ctx.store).handle(
    userId,
    { type: 'SetChatReplyMail', userId, enabled, now: ctx.clock.now().toISOString() },
    eventMetadata(ctx, caller),
  );
  if (!r.ok) return r;
  return success(enabled);
}

export const replyMailRoutes: Routes = (api, ctx) => {
  const tags: ['chat'] = ['chat'];
  const getDoc = describe({
    summary: 'My mail settings',
    description: '`chatReplyMail`: one discreet mail when the team replies while I am offline (on by default).',
    tags,
    access: 'member',
    ok: { 200: notificationSettingsSchema },
  });
  const putDoc = describe({
    summary: 'Change my mail settings',
    description:
      '`chatReplyMail: false` stops the mail sent when the team replies while I am offline (what its `List-Unsubscribe` points at); `true` turns it back on.',
    tags,
    access: 'member',
    body: settingsBody,
    ok: { 200: notificationSettingsSchema },
  });

  api.get('/users/me/notifications', getDoc, async function ownNotificationSettings(c) {
    return ok(c, { chatReplyMail: await replyMailEnabled(ctx, userOf(c).id) });
  });

  api.put('/users/me/notifications', putDoc, async function changeNotificationSettings(c) {
    const { chatReplyMail } = c.req.valid('json');
    return ok(c, { chatReplyMail: valueOr(await setReplyMail(ctx, userOf(c).id, chatReplyMail, callerOf(c))) });
  });
};
