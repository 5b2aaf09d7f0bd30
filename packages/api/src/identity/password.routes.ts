/**
 * POST /auth/reset-password (same answer whether or not the address has an account),
 * POST /auth/reset-password/confirm (single-use token, one hour), POST /auth/verify-email.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { tokenSecret } from '../http/auth.js';
import { badRequest, ok } from '../http/envelope.js';
import { jsonBody } from '../http/validate.js';
import { linkOrigin, runUserCommand } from './commands.js';
import { type AuthLimits, limitPerIp } from './limits.js';
import { hashPassword } from './passwords.js';
import { LIMITS, loginEmail, MIN_PASSWORD_LENGTH } from './registration.js';
import { revokeUserSessions } from './sessions.js';
import { emailVerificationToken, RESET_TOKEN_TTL_MS, resetToken, safeEqual, sha256, verificationTokenUserId } from './tokens.js';
import { findUserByEmail, findUserById, findUserIdByResetToken } from './users.queries.js';

export const RESET_REQUESTED = 'If an account exists for that email address, we have sent a link to reset the password.';
export const INVALID_RESET_LINK = 'This password reset link is invalid or has already been used';
export const INVALID_VERIFICATION_LINK = 'This verification link is invalid';

const tokenField = z.string({ error: 'is required' }).min(1, 'is required').max(512, 'must be at most 512 characters');
const resetSchema = z.object({
  email: loginEmail,
});
const confirmSchema = z.object({
  token: tokenField,
  password: z
    .string({ error: 'is required' })
    .min(MIN_PASSWORD_LENGTH, 'Password must be at least 8 characters long')
    .max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
});
const verifySchema = z.object({ token: tokenField });

export function passwordRoutes(api: Hono<AppEnv>, ctx: AppContext, limits: AuthLimits): void {
  const perIp = limitPerIp(ctx, limits);

  api.post('/auth/reset-password', perIp, async function requestPasswordReset(c) {
    const { email } = await jsonBody(c, resetSchema);
    const user = await findUserByEmail(ctx.db, email);
    if (user && user.status !== 'rejected') {
      const now = ctx.clock.now();
      const resetId = ctx.ids.next();
      const tokenHash = sha256(resetToken(tokenSecret(ctx), resetId));
      const expiresAt = new Date(now.getTime() + RESET_TOKEN_TTL_MS).toISOString();
      const command = { type: 'RequestPasswordReset', resetId, tokenHash, expiresAt, now: now.toISOString() } as const;
      await runUserCommand(ctx, user.id, command, { requestId: c.get('requestId'), origin: linkOrigin(ctx, c.req.url) });
    }
    return ok(c, { message: RESET_REQUESTED });
  });

  api.post('/auth/reset-password/confirm', perIp, async function confirmPasswordReset(c) {
    const { token, password } = await jsonBody(c, confirmSchema);
    const tokenHash = sha256(token);
    const userId = await findUserIdByResetToken(ctx.db, tokenHash);
    if (!userId) throw badRequest(INVALID_RESET_LINK);
    const command = {
      type: 'ConfirmPasswordReset',
      tokenHash,
      passwordHash: await hashPassword(password),
      now: ctx.clock.now().toISOString(),
    } as const;
    await runUserCommand(ctx, userId, command, { actorId: userId, requestId: c.get('requestId') });
    await revokeUserSessions(ctx.db, userId, ctx.clock.now());
    const user = await findUserById(ctx.db, userId);
    if (user) limits.failedLogins.reset(user.email_lower);
    return ok(c, { message: 'Your password has been reset. You can now log in with the new password.' });
  });

  api.post('/auth/verify-email', async function verifyEmail(c) {
    const { token } = await jsonBody(c, verifySchema);
    const userId = verificationTokenUserId(token);
    const user = userId ? await findUserById(ctx.db, userId) : undefined;
    if (!user || !safeEqual(token, emailVerificationToken(tokenSecret(ctx), user.id, user.email)))
      throw badRequest(INVALID_VERIFICATION_LINK);
    await runUserCommand(
      ctx,
      user.id,
      { type: 'VerifyEmail', email: user.email, now: ctx.clock.now().toISOString() },
      { actorId: user.id, requestId: c.get('requestId') },
    );
    return ok(c, { emailVerified: true });
  });
}
