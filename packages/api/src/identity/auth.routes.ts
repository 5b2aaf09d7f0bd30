/**
 * POST /auth/register, /auth/login, /auth/refresh, /auth/logout. Login and refresh answer
 * `{ token, user }` and set the refresh and CSRF cookies (see cookies.ts). The use cases are in
 * accounts.service.ts and session.service.ts.
 */
import { loggedOutAnswerSchema, loginAnswerSchema, registrationAnswerSchema, sessionSchema } from '@members/ui/api/schemas';
import { z } from 'zod';
import { clientIp, lookupIp } from '../geo/index.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { REGISTRATION_RECEIVED, register } from './accounts.service.js';
import { clearSessionCookies, deviceOf, refreshCookie, requireCsrf, setSessionCookies } from './cookies.js';
import { authLimitsOf, limitPerIp } from './limits.js';
import { LIMITS, loginEmail, registrationSchema } from './registration.js';
import { logIn, logOut, refreshSession } from './session.service.js';

const loginSchema = z.object({
  email: loginEmail,
  password: z.string({ error: 'is required' }).min(1, 'is required').max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
});

export const authRoutes: Routes = (api, ctx) => {
  const limits = authLimitsOf(ctx);
  const registerMemberDoc = describe({
    summary: "Register (the account waits for an admin's approval)",
    description:
      'Spec §5 rules, checked server-side with the same messages. An address that already has an account gets the same 201 answer (no account is made; its holder is mailed instead), so registration does not tell who has an account.',
    tags: ['identity'],
    access: 'public',
    body: registrationSchema,
    ok: { 201: registrationAnswerSchema },
    rateLimited: true,
  });
  const loginDoc = describe({
    summary: 'Log in',
    description:
      'A session (access token, user; the refresh token in an httpOnly cookie and a `csrf_token` cookie), or `{ mfaRequired, mfaToken }` when a second factor is due (then POST /auth/mfa/verify).',
    tags: ['identity'],
    access: 'public',
    body: loginSchema,
    ok: { 200: loginAnswerSchema },
    errors: [401],
    rateLimited: true,
  });
  const refreshDoc = describe({
    summary: 'Rotate the refresh cookie for a new access token',
    description:
      'Needs the refresh cookie and the `X-CSRF-Token` header equal to the `csrf_token` cookie. Reusing a rotated token revokes the session.',
    tags: ['identity'],
    access: 'public',
    ok: { 200: sessionSchema },
    errors: [401, 403],
    parameters: [{ name: 'X-CSRF-Token', in: 'header', required: true, schema: { type: 'string' } }],
  });
  const logoutDoc = describe({
    summary: 'Log out (revokes the refresh session, clears the cookies)',
    tags: ['identity'],
    access: 'public',
    ok: { 200: loggedOutAnswerSchema },
    errors: [403],
  });

  const perIp = limitPerIp(ctx, limits);

  api.post('/auth/register', perIp, registerMemberDoc, async function registerMember(c) {
    const input = c.req.valid('json');
    const geo = lookupIp(clientIp(c, ctx.env));
    const caller = { actorId: null, requestId: c.get('requestId'), origin: linkOrigin(ctx) };
    const user = valueOr(await register(ctx, input, { geo, caller }));
    return ok(c, { user, message: REGISTRATION_RECEIVED }, 201);
  });

  api.post('/auth/login', perIp, loginDoc, async function login(c) {
    const address = clientIp(c, ctx.env);
    const session = valueOr(await logIn(ctx, limits, c.req.valid('json'), deviceOf(c), address));
    // A second factor is due: no session yet, only the challenge (mfa.routes.ts completes it).
    if ('mfaRequired' in session) return ok(c, session);
    setSessionCookies(ctx, c, session.refresh);
    return ok(c, session.answer);
  });

  api.post('/auth/refresh', refreshDoc, async function refresh(c) {
    const token = refreshCookie(c);
    if (!token) throw new HttpError('auth.session_expired', 'No session to refresh. Please log in.');
    requireCsrf(c);
    const session = await refreshSession(ctx, token);
    if (!session.ok) {
      clearSessionCookies(c);
      throw new HttpError(session.error);
    }
    setSessionCookies(ctx, c, session.value.refresh);
    return ok(c, session.value.answer);
  });

  api.post('/auth/logout', logoutDoc, async function logout(c) {
    const token = refreshCookie(c);
    if (token) {
      requireCsrf(c);
      await logOut(ctx, token);
    }
    clearSessionCookies(c);
    return ok(c, { loggedOut: true });
  });
};
