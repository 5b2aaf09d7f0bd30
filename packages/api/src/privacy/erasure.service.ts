/**
 * Erasure by crypto-shredding ("delete my account", and an admin's erasure on a verified request).
 *
 * 1. What is personal about the member is read while it still can be: every address they used.
 * 2. `MemberErased` is appended on their stream; its append transaction destroys their data key
 *    (shredding/shredder.ts) and the read models replace their personal columns by placeholders.
 *    From then on their personal fields in every event decode to `erased member <short id>`.
 * 3. Mail writes and deliveries that saw the key before it went are waited for; later ones see it
 *    gone and write nothing (shredding/personalWrites.ts).
 * 4. Each module removes what it keeps about them outside the log (`AppModule.erasePersonalData`,
 *    in the module list's order): identity their sessions, second-factor secret and the rate-limit
 *    counters keyed by their addresses; billing cancels their open payments and ends a subscription
 *    still granting access, as billing events, so nobody verifies a payment for the erased account
 *    and the books say why (payment records stay for accounting: ids, amounts, plan, dates, tx
 *    hashes); mail removes queued and sent mail to or about them (outbox rows and the dev outbox's
 *    .eml files). Then the embedded store's WAL is checkpointed and truncated so old page images with
 *    their rows do not linger in its bytes (SQLite runs with `secure_delete`).
 * The log line says who was erased by id only.
 */

import type { erasedAnswerSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import {
  type AuthLimits,
  checkSecondFactor,
  findSecondFactor,
  findUserById,
  loginBlocked,
  runUserCommand,
  userStream,
  verifyPassword,
} from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Caller } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { waitForPersonalWrites } from '../shredding/index.js';
import type { PersonalDataParts } from './export.service.js';

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

/**
 * Erases a member (no checks of who asks: the routes and `eraseOwnAccount` do those).
 * @example await eraseMember(ctx, parts, userId, { requestedBy: 'admin', reason: 'verified request #123' }, { actorId: admin.id })
 */
export async function eraseMember(
  ctx: AppContext,
  parts: PersonalDataParts,
  userId: string,
  opts: { requestedBy: 'member' | 'admin'; reason: string | null },
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
  // 3. Mail being written or delivered by someone who saw the key before it went finishes first (then
  // its module removes it); later writes see the key gone and write nothing.
  await waitForPersonalWrites(ctx.db, userId);
  // 4. Outside the log, module by module.
  const removed: Record<string, number> = {};
  for (const m of parts) Object.assign(removed, await m.erasePersonalData?.(ctx, { userId, addresses, caller }));
  if (ctx.db.dialect === 'sqlite') await ctx.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  ctx.logger.info({ userId, requestedBy: opts.requestedBy, actorId: caller.actorId, ...removed }, 'member erased');
  return success({ erased: true });
}

/**
 * "Delete my account": the password, the second factor when enrolled, and the typed confirmation.
 * Wrong passwords and codes count as failed logins of the account (limits.ts).
 */
export async function eraseOwnAccount(
  ctx: AppContext,
  parts: PersonalDataParts,
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
  return eraseMember(ctx, parts, userId, { requestedBy: 'member', reason: null }, caller);
}

/**
 * After restoring a backup made before some erasures, erases those members again (their keys were
 * in the backup): each id of `erasedIds` that exists here and is not erased gets a `MemberErased`
 * by `cli:erasures-reapply` and loses its key. Ids unknown here registered after the backup: nothing to do.
 */
export async function reapplyErasures(
  ctx: AppContext,
  parts: PersonalDataParts,
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
        parts,
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
