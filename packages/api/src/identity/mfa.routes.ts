/**
 * The second factor over HTTP: GET /auth/mfa (status), POST /auth/mfa/enroll and
 * /auth/mfa/enroll/confirm, POST /auth/mfa/disable (signed in; an admin who must enrol may call
 * these, see http/auth.ts), and POST /auth/mfa/verify, the second step of a login, which answers
 * exactly what /auth/login answers without a second factor (token, user, refresh cookie).
 */
import { secondFactorEnrolmentSchema, secondFactorStatusSchema, sessionSchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { clientIp } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAccount } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { jsonBody } from '../http/validate.js';
import { deviceOf, setSessionCookies } from './cookies.js';
import { type AuthLimits, limitPerIp } from './limits.js';
import { completeMfaLogin, confirmEnrolment, disableSecondFactor, secondFactorStatus, startEnrolment } from './mfa.service.js';
import { LIMITS } from './registration.js';

const codeField = z.string({ error: 'is required' }).trim().min(1, 'is required').max(64, 'must be at most 64 characters');
const verifySchema = z.object({ mfaToken: z.string({ error: 'is required' }).min(1, 'is required').max(2048), code: codeField });
const confirmSchema = z.object({ code: codeField });
const disableSchema = z.object({
  password: z.string({ error: 'is required' }).min(1, 'is required').max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
  code: codeField,
});

export function mfaRoutes(api: Hono<AppEnv>, ctx: AppContext, limits: AuthLimits): void {
  const secondFactorStateDoc = describe({
    summary: 'My second factor',
    tags: ['identity'],
    access: 'account',
    ok: { 200: secondFactorStatusSchema },
  });
  const enrolDoc = describe({
    summary: 'Start (or restart) enrolling a TOTP second factor',
    description: 'The secret, its `otpauth://` URI and 10 single-use recovery codes, shown once.',
    tags: ['identity'],
    access: 'account',
    ok: { 200: secondFactorEnrolmentSchema },
    errors: [409],
  });
  const confirmEnrolDoc = describe({
    summary: 'Turn the second factor on with a correct code',
    tags: ['identity'],
    access: 'account',
    body: confirmSchema,
    ok: { 200: secondFactorStatusSchema },
    errors: [409],
  });
  const disableDoc = describe({
    summary: 'Remove the second factor (password and a code)',
    tags: ['identity'],
    access: 'account',
    body: disableSchema,
    ok: { 200: secondFactorStatusSchema },
    errors: [409],
    rateLimited: true,
  });
  const verifySecondFactorDoc = describe({
    summary: 'Second step of a login: the challenge token and a TOTP or recovery code',
    description: 'Answers what POST /auth/login answers without a second factor (session, refresh cookie).',
    tags: ['identity'],
    access: 'public',
    body: verifySchema,
    ok: { 200: sessionSchema },
    errors: [401],
    rateLimited: true,
  });

  const perIp = limitPerIp(ctx, limits);
  const callerOf = (c: { get(k: 'requestId'): string }, actorId: string) => ({ actorId, requestId: c.get('requestId') });

  api.get('/auth/mfa', secondFactorStateDoc, async function secondFactorState(c) {
    const user = await requireAccount(ctx, c);
    return ok(c, valueOr(await secondFactorStatus(ctx, user.id)));
  });

  api.post('/auth/mfa/enroll', enrolDoc, async function enrol(c) {
    const user = await requireAccount(ctx, c);
    return ok(c, valueOr(await startEnrolment(ctx, user.id, callerOf(c, user.id))));
  });

  api.post('/auth/mfa/enroll/confirm', confirmEnrolDoc, async function confirmEnrol(c) {
    const user = await requireAccount(ctx, c);
    const { code } = await jsonBody(c, confirmSchema);
    return ok(c, valueOr(await confirmEnrolment(ctx, user.id, code, callerOf(c, user.id))));
  });

  api.post('/auth/mfa/disable', perIp, disableDoc, async function disable(c) {
    const user = await requireAccount(ctx, c);
    const input = await jsonBody(c, disableSchema);
    return ok(c, valueOr(await disableSecondFactor(ctx, limits, user.id, input, callerOf(c, user.id))));
  });

  api.post('/auth/mfa/verify', perIp, verifySecondFactorDoc, async function verifySecondFactor(c) {
    const input = await jsonBody(c, verifySchema);
    const caller = { requestId: c.get('requestId') };
    const session = valueOr(await completeMfaLogin(ctx, limits, input, caller, deviceOf(c), clientIp(c, ctx.env)));
    setSessionCookies(ctx, c, session.refresh);
    return ok(c, session.answer);
  });
}
