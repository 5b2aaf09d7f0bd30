/**
 * Account settings use cases for the signed-in member: change the password (the current one
 * proves it is them; every other session ends; a notice is mailed), change the e-mail address
 * (a link to the new address; the change happens only when it is followed; the old address is told),
 * and the list of signed-in sessions with revoking one or all others. Password and address changes
 * are events on the account's stream (user.decider.ts); sessions are the plain table of sessions.ts.
 */

import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { UniqueViolation } from '../db/types.js';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import type { Caller } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { DUPLICATE_EMAIL, runUserCommand } from './accounts.service.js';
import { type AuthLimits, loginBlocked } from './limits.js';
import { checkPasskeyProof, type RelyingParty } from './passkeys.service.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { activeSessions, revokeUserSession, revokeUserSessions } from './sessions.js';
import { announceSessionsEnded } from './sessionsEnded.js';
import { EMAIL_CHANGE_TTL_MS, emailChangeToken, sha256, verificationTokenUserId } from './tokens.js';
import { EMAIL_CHANGE_APPROVED_ONLY, INVALID_EMAIL_CHANGE_LINK, mayChangeEmail } from './user.decider.js';
import { findUserByEmail, findUserById } from './users.queries.js';

export const WRONG_PASSWORD = 'Your current password is not correct';
export const SAME_PASSWORD = 'The new password must be different from the current one';
export const PASSWORD_CHANGED = 'Your password has been changed. Every other device has been signed out.';
export const SESSION_NOT_FOUND = 'Session not found';

/** The signed-in member and the session their access token belongs to (absent for tokens without one). */
export interface SettingsCaller extends Caller {
  actorId: string;
  sessionId?: string | undefined;
}

/** The current password is checked like a login (wrong ones count towards the account's failed-login limit). */
async function checkCurrentPassword(ctx: AppContext, limits: AuthLimits, userId: string, password: string) {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  const blocked = await loginBlocked(ctx, limits, user.email_lower);
  if (blocked) return blocked;
  if (!(await verifyPassword(user.password_hash, password))) {
    await limits.failedLogins.hit(user.email_lower);
    return failure('auth.wrong_password', WRONG_PASSWORD);
  }
  return success(user);
}

/**
 * Sets a new password after checking the current one, then ends every session except the caller's.
 * @example await changePassword(ctx, limits, { currentPassword, newPassword }, { actorId: user.id, sessionId })
 */
export async function changePassword(
  ctx: AppContext,
  limits: AuthLimits,
  input: { currentPassword: string; newPassword: string },
  caller: SettingsCaller,
): Promise<Result<{ message: string; otherSessionsEnded: number }>> {
  if (input.currentPassword === input.newPassword) return failure('validation.invalid_input', SAME_PASSWORD);
  const checked = await checkCurrentPassword(ctx, limits, caller.actorId, input.currentPassword);
  if (!checked.ok) return checked;
  const command = {
    type: 'ChangePassword',
    passwordHash: await hashPassword(input.newPassword),
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runUserCommand(ctx, caller.actorId, command, caller);
  if (!ran.ok) return ran;
  const ended = await revokeUserSessions(ctx.db, caller.actorId, ctx.clock.now(), caller.sessionId);
  await announceSessionsEnded(ctx, caller.actorId);
  return success({ message: PASSWORD_CHANGED, otherSessionsEnded: ended });
}

/** Records the request (the mail subscriber sends the link to the new address) once the password is right and the address is free. */
export async function requestEmailChange(
  ctx: AppContext,
  limits: AuthLimits,
  input: { password: string; newEmail: string },
  caller: SettingsCaller,
): Promise<Result<{ message: string; pendingEmail: string }>> {
  const newEmail = input.newEmail.trim();
  // Before anything else, so a pending account learns nothing (not even which addresses are taken).
  const standing = await findUserById(ctx.db, caller.actorId);
  if (standing && !mayChangeEmail(standing.status)) return failure('user.email_change_not_allowed', EMAIL_CHANGE_APPROVED_ONLY);
  const checked = await checkCurrentPassword(ctx, limits, caller.actorId, input.password);
  if (!checked.ok) return checked;
  const owner = await findUserByEmail(ctx.db, newEmail);
  if (owner && owner.id !== caller.actorId) return failure('user.email_taken', DUPLICATE_EMAIL);
  const now = ctx.clock.now();
  const changeId = ctx.ids.next();
  const command = {
    type: 'RequestEmailChange',
    changeId,
    newEmail,
    tokenHash: sha256(emailChangeToken(tokenSecret(ctx), caller.actorId, changeId)),
    expiresAt: new Date(now.getTime() + EMAIL_CHANGE_TTL_MS).toISOString(),
    now: now.toISOString(),
  } as const;
  const ran = await runUserCommand(ctx, caller.actorId, command, caller);
  if (!ran.ok) return ran;
  return success({
    message: `We sent a confirmation link to ${newEmail}. Your email address changes when you open it.`,
    pendingEmail: newEmail,
  });
}

/** Completes a change with the link from the new mailbox; no sign-in needed (the link may open on another device). */
export async function confirmEmailChange(
  ctx: AppContext,
  token: string,
  caller: Omit<Caller, 'actorId'>,
): Promise<Result<{ email: string; message: string }>> {
  const userId = verificationTokenUserId(token);
  if (!userId || !(await findUserById(ctx.db, userId))) return failure('auth.invalid_link', INVALID_EMAIL_CHANGE_LINK);
  try {
    const command = { type: 'ConfirmEmailChange', tokenHash: sha256(token), now: ctx.clock.now().toISOString() } as const;
    const ran = await runUserCommand(ctx, userId, command, { ...caller, actorId: userId });
    // An account that is gone (erased) makes its pending link simply invalid, like any other dead link.
    if (!ran.ok) return ran.error.code === 'user.not_found' ? failure('auth.invalid_link', INVALID_EMAIL_CHANGE_LINK) : ran;
    return success({ email: ran.value.state.email, message: `Your email address is now ${ran.value.state.email}.` });
  } catch (err) {
    // Someone registered (or moved to) the address between the request and the click.
    if (err instanceof UniqueViolation) return failure('user.email_taken', DUPLICATE_EMAIL);
    throw err;
  }
}

export interface SessionDto {
  id: string;
  userAgent: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  current: boolean;
}

/** The member's sessions that can still refresh, the caller's own marked `current`. */
export async function listSessions(ctx: AppContext, caller: SettingsCaller): Promise<Result<{ sessions: SessionDto[] }>> {
  const rows = await activeSessions(ctx.db, caller.actorId, ctx.clock.now());
  return success({
    sessions: rows.map((r) => ({
      id: r.id,
      userAgent: r.user_agent,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at ?? r.created_at,
      expiresAt: r.expires_at,
      current: r.id === caller.sessionId,
    })),
  });
}

/** Ends one of the member's sessions (their own current one too: that is a logout). Another member's id is a 404. */
/**
 * What ending other sessions asks for (issue 42, ASVS 3.3.4): the password again, or one of the
 * holder's passkeys (a re-authentication ceremony, passkeys.service.ts). Whoever holds only a stolen
 * access token cannot throw the holder out of their other devices.
 */
export type IdentityProof =
  | { password: string; passkey?: undefined }
  | { password?: undefined; passkey: { ceremonyId: string; response: AuthenticationResponseJSON } };

async function confirmIdentity(
  ctx: AppContext,
  limits: AuthLimits,
  proof: IdentityProof,
  rp: RelyingParty,
  caller: SettingsCaller,
): Promise<Result<void>> {
  if (proof.passkey) return checkPasskeyProof(ctx, limits, caller.actorId, proof.passkey, rp, caller);
  const checked = await checkCurrentPassword(ctx, limits, caller.actorId, proof.password);
  return checked.ok ? success(undefined) : checked;
}

export async function revokeSession(
  ctx: AppContext,
  limits: AuthLimits,
  sessionId: string,
  proof: IdentityProof,
  rp: RelyingParty,
  caller: SettingsCaller,
): Promise<Result<{ revoked: true }>> {
  const confirmed = await confirmIdentity(ctx, limits, proof, rp, caller);
  if (!confirmed.ok) return confirmed;
  const done = await revokeUserSession(ctx.db, caller.actorId, sessionId, ctx.clock.now());
  if (done) await announceSessionsEnded(ctx, caller.actorId);
  return done ? success({ revoked: true }) : failure('session.not_found', SESSION_NOT_FOUND);
}

/** Ends every session of the member except the caller's ("sign out everywhere else"). */
export async function revokeOtherSessions(
  ctx: AppContext,
  limits: AuthLimits,
  proof: IdentityProof,
  rp: RelyingParty,
  caller: SettingsCaller,
): Promise<Result<{ revoked: number }>> {
  const confirmed = await confirmIdentity(ctx, limits, proof, rp, caller);
  if (!confirmed.ok) return confirmed;
  const revoked = await revokeUserSessions(ctx.db, caller.actorId, ctx.clock.now(), caller.sessionId);
  await announceSessionsEnded(ctx, caller.actorId);
  return success({ revoked });
}
