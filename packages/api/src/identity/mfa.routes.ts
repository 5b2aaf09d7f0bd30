/**
 * The second factor over HTTP: GET /auth/mfa (status), POST /auth/mfa/enroll and
 * /auth/mfa/enroll/confirm, POST /auth/mfa/disable (signed in; an admin who must enrol may call
 * these, see http/auth.ts), and POST /auth/mfa/verify, the second step of a login, which answers
 * exactly what /auth/login answers without a second factor (token, user, refresh cookie).
 */
import { secondFactorEnrolmentSchema, secondFactorStatusSchema, sessionSchema } from '@members/ui/api/schemas';
import { z } from 'zod';
import { clientIp } from '../geo/index.js';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { deviceOf, setSessionCookies } from './cookies.js';
import { authLimitsOf, limitPerIp } from './limits.js';
import { completeMfaLogin, confirmEnrolment, disableSecondFactor, secondFactorStatus, startEnrolment } from './mfa.service.js';
import { LIMITS } from './registration.js';

const codeField = z.string({ error: 'is required' }).trim().min(1, 'is required').max(64, 'must be at most 64 characters');
const verifySchema = z.object({ mfaToken: z.string({ error: 'is required' }).min(1, 'is required').max(2048), code: codeField });
const confirmSchema = z.object({ code: codeField });
const disableSchema = z.object({
  password: z.string({ error: 'is required' }).min(1, 'is required').max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
  code: codeField,
});

export const mfaRoutes: Routes = (api, ctx) => {
  const limits = authLimitsOf(ctx);
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

  api.get('/auth/mfa', secondFactorStateDoc, async function secondFactorState(c) {
    return ok(c, valueOr(await secondFactorStatus(ctx, userOf(c).id)));
  });

  api.post('/auth/mfa/enroll', enrolDoc, async function enrol(c) {
    return ok(c, valueOr(await startEnrolment(ctx, userOf(c).id, callerOf(c))));
  });

  api.post('/auth/mfa/enroll/confirm', confirmEnrolDoc, async function confirmEnrol(c) {
    return ok(c, valueOr(await confirmEnrolment(ctx, userOf(c).id, c.req.valid('json').code, callerOf(c))));
  });

  api.post('/auth/mfa/disable', perIp, disableDoc, async function disable(c) {
    return ok(c, valueOr(await disableSecondFactor(ctx, limits, userOf(c).id, c.req.valid('json'), callerOf(c))));
  });

  api.post('/auth/mfa/verify', perIp, verifySecondFactorDoc, async function verifySecondFactor(c) {
    const caller = { requestId: c.get('requestId') };
    const session = valueOr(await completeMfaLogin(ctx, limits, c.req.valid('json'), caller, deviceOf(c), clientIp(c, ctx.env)));
    setSessionCookies(ctx, c, session.refresh);
    return ok(c, session.answer);
  });
};
