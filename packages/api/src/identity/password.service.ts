/**
 * Password use cases: request a reset (same answer whether or not the address has an account) and
 * confirm it with the single-use, one-hour token (every session ends, the failed-login count is
 * cleared). A logged-in password change belongs here too.
 */

import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import type { Caller } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { runUserCommand } from './accounts.service.js';
import type { AuthLimits } from './limits.js';
import { hashPassword } from './passwords.js';
import { revokeUserSessions } from './sessions.js';
import { announceSessionsEnded } from './sessionsEnded.js';
import { RESET_TOKEN_TTL_MS, resetToken, sha256 } from './tokens.js';
import { findUserByEmail, findUserById, findUserIdByResetToken } from './users.queries.js';

export const RESET_REQUESTED = 'If an account exists for that email address, we have sent a link to reset the password.';
export const INVALID_RESET_LINK = 'This password reset link is invalid or has already been used';
export const PASSWORD_RESET_DONE = 'Your password has been reset. You can now log in with the new password.';

/**
 * Records a reset request (the mail subscriber sends the link) unless the account is unknown. A
 * rejected member may reset too: their restricted session is how they export or erase their data.
 */
export async function requestPasswordReset(ctx: AppContext, email: string, caller: Caller): Promise<Result<{ message: string }>> {
  const user = await findUserByEmail(ctx.db, email);
  if (user && !user.erased_at) {
    const now = ctx.clock.now();
    const resetId = ctx.ids.next();
    const tokenHash = sha256(resetToken(tokenSecret(ctx), resetId));
    const expiresAt = new Date(now.getTime() + RESET_TOKEN_TTL_MS).toISOString();
    const command = { type: 'RequestPasswordReset', resetId, tokenHash, expiresAt, now: now.toISOString() } as const;
    const ran = await runUserCommand(ctx, user.id, command, caller);
    if (!ran.ok) return ran;
  }
  return success({ message: RESET_REQUESTED });
}

export async function confirmPasswordReset(
  ctx: AppContext,
  limits: AuthLimits,
  input: { token: string; password: string },
  caller: Omit<Caller, 'actorId'>,
  address?: string,
): Promise<Result<{ message: string }>> {
  const tokenHash = sha256(input.token);
  const userId = await findUserIdByResetToken(ctx.db, tokenHash);
  if (!userId) return failure('auth.invalid_link', INVALID_RESET_LINK);
  const command = {
    type: 'ConfirmPasswordReset',
    tokenHash,
    passwordHash: await hashPassword(input.password),
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runUserCommand(ctx, userId, command, { ...caller, actorId: userId });
  if (!ran.ok) return ran;
  await revokeUserSessions(ctx.db, userId, ctx.clock.now());
  await announceSessionsEnded(ctx, userId);
  const user = await findUserById(ctx.db, userId);
  // The holder proved the mailbox: their failed logins, and those from where they reset, are forgiven.
  if (user) await limits.failedLogins.reset(user.email_lower, address);
  return success({ message: PASSWORD_RESET_DONE });
}
