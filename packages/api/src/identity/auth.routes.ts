/**
 * POST /auth/register, /auth/login, /auth/refresh, /auth/logout. Login and refresh answer
 * `{ token, user }` and set the refresh and CSRF cookies (see cookies.ts).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { UniqueViolation } from '../db/types.js';
import { clientIp, lookupIp } from '../geo/lookup.js';
import type { AppEnv } from '../http/appEnv.js';
import { badRequest, conflict, forbidden, ok, unauthorized } from '../http/envelope.js';
import { jsonBody } from '../http/validate.js';
import { linkOrigin, runUserCommand } from './commands.js';
import { clearSessionCookies, refreshCookie, requireCsrf } from './cookies.js';
import { type AuthLimits, assertLoginAllowed, limitPerIp } from './limits.js';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords.js';
import { checkRegistration, LIMITS, loginEmail, registrationSchema } from './registration.js';
import { answerWithSession, refreshTtlMs } from './session.service.js';
import { revokeSessionByToken, rotateSession } from './sessions.js';
import { findUserByEmail, findUserById, toUserDto } from './users.queries.js';

export const DUPLICATE_EMAIL = 'An account with this email already exists';
export const INVALID_LOGIN = 'Invalid email or password';
export const REJECTED_LOGIN = 'Your account registration was not approved. Please contact support if you believe this is a mistake.';
const SESSION_EXPIRED = 'Your session has expired. Please log in again.';

const loginSchema = z.object({
  email: loginEmail,
  password: z.string({ error: 'is required' }).min(1, 'is required').max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
});

export function authRoutes(api: Hono<AppEnv>, ctx: AppContext, limits: AuthLimits): void {
  const perIp = limitPerIp(ctx, limits);

  api.post('/auth/register', perIp, async function register(c) {
    const checked = checkRegistration(await jsonBody(c, registrationSchema), ctx.clock.now());
    if (!checked.ok) throw badRequest(checked.message);
    const { password, ...r } = checked.value;
    if (await findUserByEmail(ctx.db, r.email)) throw conflict(DUPLICATE_EMAIL);
    const geo = lookupIp(clientIp(c, ctx.env));
    const data = {
      ...r,
      userId: ctx.ids.next(),
      passwordHash: await hashPassword(password),
      role: 'member' as const,
      geoCountry: geo?.country ?? null,
      geoRegion: geo?.region ?? null,
    };
    await runUserCommand(
      ctx,
      data.userId,
      { type: 'Register', data, now: ctx.clock.now().toISOString() },
      {
        requestId: c.get('requestId'),
        origin: linkOrigin(ctx, c.req.url),
      },
    ).catch((err) => {
      throw err instanceof UniqueViolation ? conflict(DUPLICATE_EMAIL) : err;
    });
    const user = await findUserById(ctx.db, data.userId);
    return ok(c, { user: user && toUserDto(user), message: 'Registration received. Your account is pending approval.' }, 201);
  });

  api.post('/auth/login', perIp, async function login(c) {
    const { email, password } = await jsonBody(c, loginSchema);
    const key = email.trim().toLowerCase();
    assertLoginAllowed(ctx, limits, key);
    const user = await findUserByEmail(ctx.db, key);
    const valid = user ? await verifyPassword(user.password_hash, password) : await verifyAgainstDummy(password);
    if (!user || !valid) {
      limits.failedLogins.hit(key);
      throw unauthorized(INVALID_LOGIN);
    }
    if (user.status === 'rejected') throw forbidden(REJECTED_LOGIN);
    limits.failedLogins.reset(key);
    return ok(c, await answerWithSession(ctx, c, user));
  });

  api.post('/auth/refresh', async function refresh(c) {
    const token = refreshCookie(c);
    if (!token) throw unauthorized('No session to refresh. Please log in.');
    requireCsrf(c);
    const rotated = await rotateSession(ctx.db, token, ctx.clock.now(), refreshTtlMs(ctx));
    const user = rotated.ok ? await findUserById(ctx.db, rotated.userId) : undefined;
    if (!rotated.ok || !user || user.status === 'rejected') {
      clearSessionCookies(c);
      throw unauthorized(SESSION_EXPIRED);
    }
    return ok(c, await answerWithSession(ctx, c, user, rotated.next));
  });

  api.post('/auth/logout', async function logout(c) {
    const token = refreshCookie(c);
    if (token) {
      requireCsrf(c);
      await revokeSessionByToken(ctx.db, token, ctx.clock.now());
    }
    clearSessionCookies(c);
    return ok(c, { loggedOut: true });
  });
}
