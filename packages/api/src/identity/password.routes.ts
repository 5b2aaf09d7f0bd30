/**
 * POST /auth/reset-password (same answer whether or not the address has an account),
 * POST /auth/reset-password/confirm (single-use token, one hour), POST /auth/verify-email.
 * The use cases are in password.service.ts and accounts.service.ts.
 */

import { emailVerifiedAnswerSchema, messageAnswerSchema } from '@members/ui/api/schemas';
import { MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES } from '@members/ui/registration';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { clientIp } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import { jsonBody } from '../http/validate.js';
import { verifyEmail } from './accounts.service.js';
import { type AuthLimits, limitPerIp } from './limits.js';
import { confirmPasswordReset, requestPasswordReset } from './password.service.js';
import { LIMITS, loginEmail } from './registration.js';

const tokenField = z.string({ error: 'is required' }).min(1, 'is required').max(512, 'must be at most 512 characters');
const resetSchema = z.object({
  email: loginEmail,
});
const confirmSchema = z.object({
  token: tokenField,
  password: z
    .string({ error: 'is required' })
    .min(MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES.passwordTooShort)
    .max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
});
const verifySchema = z.object({ token: tokenField });

export function passwordRoutes(api: Hono<AppEnv>, ctx: AppContext, limits: AuthLimits): void {
  const requestResetDoc = describe({
    summary: 'Mail a password-reset link',
    description: 'The same answer whether or not the address has an account.',
    tags: ['identity'],
    access: 'public',
    body: resetSchema,
    ok: { 200: messageAnswerSchema },
    rateLimited: true,
  });
  const confirmResetDoc = describe({
    summary: 'Set a new password with a reset token (single use, one hour)',
    tags: ['identity'],
    access: 'public',
    body: confirmSchema,
    ok: { 200: messageAnswerSchema },
    rateLimited: true,
  });
  const verifyAddressDoc = describe({
    summary: 'Confirm an e-mail address with the mailed token',
    tags: ['identity'],
    access: 'public',
    body: verifySchema,
    ok: { 200: emailVerifiedAnswerSchema },
  });

  const perIp = limitPerIp(ctx, limits);

  api.post('/auth/reset-password', perIp, requestResetDoc, async function requestReset(c) {
    const { email } = await jsonBody(c, resetSchema);
    const caller = { actorId: null, requestId: c.get('requestId'), origin: linkOrigin(ctx) };
    return ok(c, valueOr(await requestPasswordReset(ctx, email, caller)));
  });

  api.post('/auth/reset-password/confirm', perIp, confirmResetDoc, async function confirmReset(c) {
    const input = await jsonBody(c, confirmSchema);
    const address = clientIp(c, ctx.env) ?? 'unknown';
    return ok(c, valueOr(await confirmPasswordReset(ctx, limits, input, { requestId: c.get('requestId') }, address)));
  });

  api.post('/auth/verify-email', verifyAddressDoc, async function verifyAddress(c) {
    const { token } = await jsonBody(c, verifySchema);
    return ok(c, valueOr(await verifyEmail(ctx, token, { requestId: c.get('requestId') })));
  });
}
