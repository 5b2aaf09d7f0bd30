/**
 * POST /auth/reset-password (same answer whether or not the address has an account),
 * POST /auth/reset-password/confirm (single-use token, one hour), POST /auth/verify-email.
 * The use cases are in password.service.ts and accounts.service.ts.
 */

import { emailVerifiedAnswerSchema, messageAnswerSchema } from '@members/ui/api/schemas';
import { MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES } from '@members/ui/registration';
import { z } from 'zod';
import { clientIp } from '../geo/index.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { verifyEmail } from './accounts.service.js';
import { authLimitsOf, limitPerIp } from './limits.js';
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

export const passwordRoutes: Routes = (api, ctx) => {
  const limits = authLimitsOf(ctx);
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
    const { email } = c.req.valid('json');
    const caller = { actorId: null, requestId: c.get('requestId'), origin: linkOrigin(ctx) };
    return ok(c, valueOr(await requestPasswordReset(ctx, email, caller)));
  });

  api.post('/auth/reset-password/confirm', perIp, confirmResetDoc, async function confirmReset(c) {
    const input = c.req.valid('json');
    const address = clientIp(c, ctx.env) ?? 'unknown';
    return ok(c, valueOr(await confirmPasswordReset(ctx, limits, input, { requestId: c.get('requestId') }, address)));
  });

  api.post('/auth/verify-email', verifyAddressDoc, async function verifyAddress(c) {
    const { token } = c.req.valid('json');
    return ok(c, valueOr(await verifyEmail(ctx, token, { requestId: c.get('requestId') })));
  });
};
