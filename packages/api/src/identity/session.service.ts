/**
 * Session use cases: log in (the failed-login limit, the password check, the rule that a
 * suspended account cannot log in, and the second-factor challenge when one is enrolled), refresh (rotation; a suspended account's session ends), log out.
 * A rejected member signs in to a restricted session: only their data rights (export, erasure), their
 * profile and sign-out answer them (http/auth.ts `requireAccountHolder`); every other route refuses them.
 * Each successful one issues an access token and a refresh token; the route puts the refresh token
 * in its cookie (cookies.ts), so nothing here needs HTTP.
 */
import type { sessionSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { signAccessToken } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import { failure, type Result, success } from '../shared/result.js';
import { type AuthLimits, loginBlocked } from './limits.js';
import { signMfaToken } from './mfaToken.js';
import { hasPasskey } from './passkeys.js';
import { verifyAgainstDummy, verifyPassword } from './passwords.js';
import { adminLacksSecondFactor, findSecondFactor } from './secondFactors.js';
import { createSession, type IssuedToken, revokeSessionByToken, rotateSession, type SessionLifetimes } from './sessions.js';
import { announceSessionsEnded } from './sessionsEnded.js';
import { findUserByEmail, findUserById, toUserDto } from './users.queries.js';
import type { UserRow } from './users.schema.js';

export const INVALID_LOGIN = 'Invalid email or password';
export const SUSPENDED_LOGIN = 'Your account has been suspended. Please contact support if you believe this is a mistake.';
export const SESSION_EXPIRED = 'Your session has expired. Please log in again.';
export const PASSKEY_REQUIRED = 'Sign in with your passkey: your account uses it as its second factor.';

/** A session as login, refresh and the second-factor step answer it (the shared `sessionSchema`). */
export type SessionAnswer = z.infer<typeof sessionSchema>;

/** What login answers in place of a session when a second factor is due (see mfa.service.ts). */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
}

/** A started or rotated session: what the API answers, and the refresh token for the cookie. */
export interface IssuedSession {
  answer: SessionAnswer;
  refresh: IssuedToken;
}

export function refreshTtlMs(ctx: AppContext): number {
  return ctx.env.REFRESH_TOKEN_TTL_DAYS * 24 * 60 * 60 * 1000;
}

/** The absolute lifetime of every session and the idle limit of staff (admin) sessions, from the settings. */
export function sessionLifetimes(env: Pick<AppContext['env'], 'SESSION_ABSOLUTE_DAYS' | 'STAFF_SESSION_IDLE_MINUTES'>): SessionLifetimes {
  return { absoluteMs: env.SESSION_ABSOLUTE_DAYS * 24 * 60 * 60 * 1000, staffIdleMs: env.STAFF_SESSION_IDLE_MINUTES * 60 * 1000 };
}

/** What a new session records about the device that opened it (shown in the member's session list). */
export interface Device {
  userAgent: string | null;
}

/**
 * Signs an access token for a (new or rotated) refresh session. The token names its session (`sid`),
 * so revoking the session ends the access token too, and the session list can mark the current one.
 */
export async function issueSession(ctx: AppContext, user: UserRow, refresh?: IssuedToken, device?: Device): Promise<IssuedSession> {
  const issued =
    refresh ??
    (await createSession(
      ctx.db,
      user.id,
      ctx.ids.next(),
      ctx.clock.now(),
      refreshTtlMs(ctx),
      device?.userAgent ?? null,
      sessionLifetimes(ctx.env),
    ));
  const token = await signAccessToken(ctx, { id: user.id, role: user.role, sessionId: issued.sessionId });
  const answer: SessionAnswer = { token, expiresIn: ctx.env.ACCESS_TOKEN_TTL_SECONDS, user: toUserDto(user) };
  if (ctx.env.REQUIRE_ADMIN_2FA && user.role === 'admin' && (await adminLacksSecondFactor(ctx.db, user.id)))
    answer.mfaEnrollmentRequired = true;
  return { answer, refresh: issued };
}

/**
 * A suspended account is refused even with the right password; an erased one is gone. A rejected one
 * signs in to the restricted session of its data rights (see the top of this file).
 */
export const mayLogIn = (user: Pick<UserRow, 'status'> & { erased_at?: string | null; staff_removed_at?: string | null }): boolean =>
  user.status !== 'suspended' && !user.erased_at && !user.staff_removed_at;

/**
 * Checks the password from `address` (the client's; failures are counted per account and per
 * account and address, see limits.ts).
 */
export async function logIn(
  ctx: AppContext,
  limits: AuthLimits,
  credentials: { email: string; password: string },
  device?: Device,
  address = 'unknown',
): Promise<Result<IssuedSession | MfaChallenge>> {
  const key = credentials.email.trim().toLowerCase();
  const blocked = await loginBlocked(ctx, limits, key, address);
  if (blocked) return blocked;
  const user = await findUserByEmail(ctx.db, key);
  // The dummy check keeps an unknown address as slow as a wrong password.
  const valid = user ? await verifyPassword(user.password_hash, credentials.password) : await verifyAgainstDummy(credentials.password);
  // A removed staff member's account is gone for them: answered as any wrong password.
  if (!user || !valid || user.staff_removed_at) {
    await limits.failedLogins.hit(key, address);
    return failure('auth.invalid_credentials', INVALID_LOGIN);
  }
  if (!mayLogIn(user)) return failure('auth.login_suspended', SUSPENDED_LOGIN);
  // An admin whose second factor is a passkey alone signs in with it: the password is one factor.
  if (
    ctx.env.REQUIRE_ADMIN_2FA &&
    user.role === 'admin' &&
    (await findSecondFactor(ctx.db, user.id))?.status !== 'enabled' &&
    (await hasPasskey(ctx.db, user.id))
  )
    return failure('auth.passkey_required', PASSKEY_REQUIRED);
  // With a second factor the failed-login count is only cleared once the code is right too, so
  // knowing the password does not buy fresh guesses at the code.
  if ((await findSecondFactor(ctx.db, user.id))?.status === 'enabled')
    return success({ mfaRequired: true, mfaToken: await signMfaToken(ctx, user) });
  await limits.failedLogins.reset(key, address);
  return success(await issueSession(ctx, user, undefined, device));
}

/**
 * Rotates the refresh token; any problem (unknown, reused after the reuse interval, expired, past the
 * session's absolute lifetime or a staff session's idle limit, rejected account) ends the session.
 */
export async function refreshSession(ctx: AppContext, refreshToken: string): Promise<Result<IssuedSession>> {
  const rotated = await rotateSession(
    ctx.db,
    refreshToken,
    ctx.clock.now(),
    refreshTtlMs(ctx),
    sessionLifetimes(ctx.env),
    ctx.env.REFRESH_REUSE_INTERVAL_SECONDS * 1000,
  );
  const user = rotated.ok ? await findUserById(ctx.db, rotated.userId) : undefined;
  if (!rotated.ok || !user || !mayLogIn(user)) return failure('auth.session_expired', SESSION_EXPIRED);
  return success(await issueSession(ctx, user, rotated.next));
}

/** Ends the session the refresh token belongs to; an unknown token is ignored. */
export async function logOut(ctx: AppContext, refreshToken: string): Promise<void> {
  const userId = await revokeSessionByToken(ctx.db, refreshToken, ctx.clock.now());
  if (userId) await announceSessionsEnded(ctx, userId);
}
