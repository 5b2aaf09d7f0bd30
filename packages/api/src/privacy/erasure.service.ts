/**
 * Erasure by crypto-shredding ("delete my account", and an admin's erasure on a verified request).
 *
 * 1. What is personal about the member is read while it still can be: every address they used.
 * 2. `MemberErased` is appended on their stream; its append transaction destroys their data key
 *    (shredding/shredder.ts) and the read models replace their personal columns by placeholders.
 *    From then on their personal fields in every event decode to `erased member <short id>`.
 * 3. Mail writes and deliveries that saw the key before it went are waited for; later ones see it
 *    gone and write nothing (shredding/personalWrites.ts). Then what lives outside the log goes: refresh sessions, the second-factor secret, queued and sent
 *    mail to or about them (outbox rows and the dev outbox's .eml files), rate-limit counters keyed by
 *    their address (keyed by an HMAC of it, see identity/limits.ts); the embedded store's WAL is checkpointed and truncated so old page images with
 *    their rows do not linger in its bytes (SQLite runs with `secure_delete`).
 * Payment records stay (ids, amounts, plan, dates, tx hashes) for accounting; the member's open
 * payments are canceled and a subscription still granting access ends, as billing events right after
 * `MemberErased` (billing/erasure.ts), so nobody verifies a payment for the erased account and the
 * books say why. The log line says who was erased by id only.
 */

import fs from 'node:fs';
import path from 'node:path';
import type { erasedAnswerSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { closeBillingOfErasedMember } from '../billing/index.js';
import type { AppContext } from '../context.js';
import {
  type AuthLimits,
  checkSecondFactor,
  deleteSecret,
  findSecondFactor,
  findUserById,
  loginBlocked,
  runUserCommand,
  userStream,
  verifyPassword,
} from '../identity/index.js';
import { emlFileName, outboxDir } from '../mail/index.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { waitForPersonalWrites } from '../shredding/personalWrites.js';

/** What the member types to confirm (README "Privacy"; the web form says so). */
export const ERASE_CONFIRMATION = 'DELETE';
export const CONFIRMATION_MISMATCH = `Type ${ERASE_CONFIRMATION} to confirm that your account and personal data should be erased`;
export const WRONG_PASSWORD = 'Incorrect password';
export const CODE_REQUIRED = 'Enter the code from your authenticator app (or a recovery code) to delete your account';
export const INVALID_ERASE_CODE = 'Invalid authentication code';

/** The shared `erasedAnswerSchema`. */
export type Erased = z.infer<typeof erasedAnswerSchema>;

/** Every address the member's events ever held (registration, verification, later changes). */
async function addressesOf(ctx: AppContext, userId: string): Promise<string[]> {
  const out = new Set<string>();
  for (const e of await ctx.store.readStream(userStream(userId))) {
    for (const [k, v] of Object.entries(e.data as Record<string, unknown>))
      if (/email$/i.test(k) && typeof v === 'string' && v.includes('@')) out.add(v.toLowerCase());
  }
  const row = await findUserById(ctx.db, userId);
  if (row?.email.includes('@')) out.add(row.email.toLowerCase());
  return [...out];
}

/** Outbox rows for the member, to or mentioning the addresses, and their .eml files in the dev outbox. */
async function forgetMail(ctx: AppContext, userId: string, addresses: string[]): Promise<number> {
  let removed = 0;
  const keys = (await ctx.db.all<{ key: string }>('SELECT key FROM mail_outbox WHERE subject_id = ?', [userId])).map((r) => r.key);
  for (const a of addresses) {
    const like = `%${a.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    const rows = await ctx.db.all<{ key: string }>(
      `SELECT key FROM mail_outbox WHERE LOWER(to_address) = ? OR LOWER(text_body) LIKE ? ESCAPE '\\' OR LOWER(COALESCE(html_body, '')) LIKE ? ESCAPE '\\'`,
      [a, like, like],
    );
    keys.push(...rows.map((r) => r.key));
  }
  for (const key of new Set(keys)) removed += (await ctx.db.run('DELETE FROM mail_outbox WHERE key = ?', [key])).changes;
  const dir = outboxDir(ctx);
  if (fs.existsSync(dir)) {
    // Their mails' files by name (an address may be folded across lines inside), then any file naming an address.
    const names = new Set([...keys].map(emlFileName));
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.eml')) continue;
      const file = path.join(dir, name);
      if (names.has(name) || addresses.some((a) => fs.readFileSync(file, 'utf8').toLowerCase().includes(a)))
        fs.rmSync(file, { force: true });
    }
  }
  return removed;
}

/**
 * Erases a member (no checks of who asks: the routes and `eraseOwnAccount` do those).
 * @example await eraseMember(ctx, userId, { requestedBy: 'admin', reason: 'verified request #123' }, { actorId: admin.id })
 */
export async function eraseMember(
  ctx: AppContext,
  userId: string,
  opts: { requestedBy: 'member' | 'admin'; reason: string | null; limits?: AuthLimits },
  caller: Caller & { actorId: string },
): Promise<Result<Erased>> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.erased_at) return failure('user.not_found', 'User not found');
  // 1. Read before the key goes.
  const addresses = await addressesOf(ctx, userId);
  // 2. The event: key destroyed and read models blanked in its transaction.
  const command = {
    type: 'Erase',
    erasedBy: caller.actorId,
    requestedBy: opts.requestedBy,
    reason: opts.reason,
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runUserCommand(ctx, userId, command, caller);
  if (!ran.ok) return ran;
  // 3. Outside the log.
  await ctx.db.transaction(async (tx) => {
    await tx.run('DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM refresh_sessions WHERE user_id = ?)', [userId]);
    await tx.run('DELETE FROM refresh_sessions WHERE user_id = ?', [userId]);
  });
  await deleteSecret(ctx.db, userId);
  for (const a of addresses) await opts.limits?.failedLogins.reset(a);
  // Mail being written or delivered by someone who saw the key before it went finishes first (then is
  // removed here); later ones see it gone and write nothing (shredding/personalWrites.ts).
  await waitForPersonalWrites(ctx.db, userId);
  const mails = await forgetMail(ctx, userId, addresses);
  // Billing's side: open payments canceled, the subscription ended. Verifying a payment of an erased
  // member is refused already (payments.service.ts); if this fails, the lifecycle pass finishes it.
  const billing = await closeBillingOfErasedMember(ctx, userId, eventMetadata(ctx, caller)).catch((err) => {
    ctx.logger.warn({ err, userId }, 'could not close the billing of an erased member yet; the lifecycle pass will');
    return { canceledPayments: 0, endedSubscriptions: 0 };
  });
  if (ctx.db.dialect === 'sqlite') await ctx.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  ctx.logger.info({ userId, requestedBy: opts.requestedBy, actorId: caller.actorId, mailsRemoved: mails, ...billing }, 'member erased');
  return success({ erased: true });
}

/**
 * "Delete my account": the password, the second factor when enrolled, and the typed confirmation.
 * Wrong passwords and codes count as failed logins of the account (limits.ts).
 */
export async function eraseOwnAccount(
  ctx: AppContext,
  limits: AuthLimits,
  userId: string,
  input: { password: string; code?: string | null | undefined; confirmation: string },
  caller: Caller & { actorId: string },
): Promise<Result<Erased>> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.erased_at) return failure('user.not_found', 'User not found');
  if (input.confirmation !== ERASE_CONFIRMATION) return failure('user.confirmation_mismatch', CONFIRMATION_MISMATCH);
  const blocked = await loginBlocked(ctx, limits, user.email_lower);
  if (blocked) return blocked;
  if (!(await verifyPassword(user.password_hash, input.password))) {
    await limits.failedLogins.hit(user.email_lower);
    return failure('auth.wrong_password', WRONG_PASSWORD);
  }
  if ((await findSecondFactor(ctx.db, userId))?.status === 'enabled') {
    const code = input.code?.trim();
    if (!code) return failure('mfa.code_required', CODE_REQUIRED);
    if (!(await checkSecondFactor(ctx, userId, code, caller)).ok) {
      await limits.failedLogins.hit(user.email_lower);
      return failure('mfa.invalid_code', INVALID_ERASE_CODE);
    }
  }
  return eraseMember(ctx, userId, { requestedBy: 'member', reason: null, limits }, caller);
}

/**
 * After restoring a backup made before some erasures, erases those members again (their keys were
 * in the backup): each id of `erasedIds` that exists here and is not erased gets a `MemberErased`
 * by `cli:erasures-reapply` and loses its key. Ids unknown here registered after the backup: nothing to do.
 */
export async function reapplyErasures(
  ctx: AppContext,
  erasedIds: string[],
): Promise<{ reapplied: string[]; alreadyErased: string[]; unknown: string[] }> {
  const out = { reapplied: [] as string[], alreadyErased: [] as string[], unknown: [] as string[] };
  for (const id of erasedIds) {
    const user = await findUserById(ctx.db, id);
    if (!user) out.unknown.push(id);
    else if (user.erased_at) out.alreadyErased.push(id);
    else {
      const r = await eraseMember(
        ctx,
        id,
        { requestedBy: 'admin', reason: 'erasure re-applied after a restore' },
        { actorId: 'system', actor: 'cli:erasures-reapply' },
      );
      if (!r.ok) throw new Error(`could not erase ${id} again: ${r.error.message}`);
      out.reapplied.push(id);
    }
  }
  return out;
}
