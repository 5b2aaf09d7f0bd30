/**
 * Account settings over HTTP (signed in): POST /users/me/password, POST /users/me/email,
 * GET /users/me/sessions, DELETE /users/me/sessions/{id}, DELETE /users/me/sessions (all others; both
 * ask again for the password or a passkey);
 * and POST /auth/email-change/confirm, the link from the new mailbox, which needs no sign-in
 * (it may be opened on another device; the mailed token is the proof). Use cases: settings.service.ts.
 */
import {
  emailChangedAnswerSchema,
  emailChangeRequestedAnswerSchema,
  otherSessionsRevokedAnswerSchema,
  passwordChangedAnswerSchema,
  sessionRevokedAnswerSchema,
  sessionsAnswerSchema,
} from '@members/ui/api/schemas';
import { MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES } from '@members/ui/registration';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { authLimitsOf, limitPerIp } from './limits.js';
import { passkeyProofSchema } from './passkeys.routes.js';
import { relyingParty } from './passkeys.service.js';
import { LIMITS } from './registration.js';
import {
  changePassword,
  confirmEmailChange,
  type IdentityProof,
  listSessions,
  requestEmailChange,
  revokeOtherSessions,
  revokeSession,
  type SettingsCaller,
} from './settings.service.js';

const currentPassword = z
  .string({ error: 'is required' })
  .min(1, 'is required')
  .max(LIMITS.password, `must be at most ${LIMITS.password} characters`);
const passwordSchema = z.object({
  currentPassword,
  newPassword: z
    .string({ error: 'is required' })
    .min(MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES.passwordTooShort)
    .max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
});
const emailSchema = z.object({
  password: currentPassword,
  newEmail: z.email({ error: 'Invalid email address' }).max(LIMITS.email, `must be at most ${LIMITS.email} characters`),
});
/** Ending other sessions asks who it is again: the password, or a passkey's answer (issue 42). */
const proofSchema = z
  .object({ password: currentPassword.optional(), passkey: passkeyProofSchema.optional() })
  .refine((p) => Boolean(p.password) !== Boolean(p.passkey), { message: 'give the password or a passkey', path: ['password'] });
const toProof = (p: z.infer<typeof proofSchema>): IdentityProof =>
  p.passkey
    ? { passkey: { ceremonyId: p.passkey.ceremonyId, response: p.passkey.credential as unknown as AuthenticationResponseJSON } }
    : { password: p.password as string };

const confirmSchema = z.object({
  token: z.string({ error: 'is required' }).min(1, 'is required').max(512, 'must be at most 512 characters'),
});

export const settingsRoutes: Routes = (api, ctx) => {
  const limits = authLimitsOf(ctx);
  const perIp = limitPerIp(ctx, limits);

  /** The signed-in member, their session (the one to keep) and where mailed links point. */
  function settingsCaller(c: Context<AppEnv, any, any>): SettingsCaller {
    return { ...callerOf(c), sessionId: c.get('auth')?.sessionId, origin: linkOrigin(ctx) };
  }

  const tags: ['identity'] = ['identity'];
  const passwordDoc = describe({
    summary: 'Change my password',
    description:
      'The current password is checked like a login (wrong ones count toward the failed-login limit). Every other session of the account ends (refresh and access tokens); the caller stays signed in; a notice is mailed.',
    tags,
    access: 'member',
    body: passwordSchema,
    ok: { 200: passwordChangedAnswerSchema },
    errors: [429],
  });
  const emailDoc = describe({
    summary: 'Ask to change my e-mail address',
    description:
      'Approved accounts only (403 for a pending one: it could otherwise have mail sent to anyone). Needs the password. A confirmation link is mailed to the new address (within the mail limits); nothing changes until it is opened (POST /auth/email-change/confirm). An address in use is a 409.',
    tags,
    access: 'member',
    body: emailSchema,
    ok: { 200: emailChangeRequestedAnswerSchema },
    errors: [409, 429],
  });
  const confirmDoc = describe({
    summary: 'Confirm an e-mail change with the mailed link',
    description:
      'No sign-in needed: the token from the link is the proof. The link works once, for 24 hours; the old address is told. An address taken meanwhile is a 409.',
    tags,
    access: 'public',
    body: confirmSchema,
    ok: { 200: emailChangedAnswerSchema },
    errors: [409],
    rateLimited: true,
  });
  const sessionsDoc = describe({
    summary: 'My signed-in sessions',
    description: "Sessions that can still refresh: device (user agent), created, last used, expiry; `current` marks the caller's.",
    tags,
    access: 'member',
    ok: { 200: sessionsAnswerSchema },
  });
  const revokeOneDoc = describe({
    summary: 'Sign one of my sessions out',
    description:
      "Its refresh token and its access tokens stop working. Asks again who it is: `password`, or `passkey` (the answer to POST /auth/passkeys/reauthentication); a wrong one is a 401 and counts as a failed login. Another member's session id is a 404.",
    tags,
    access: 'member',
    params: idParams,
    body: proofSchema,
    ok: { 200: sessionRevokedAnswerSchema },
    errors: [401, 404, 429],
  });
  const revokeOthersDoc = describe({
    summary: 'Sign out every other session of mine',
    description: 'Asks again who it is, as for one session: `password` or `passkey`.',
    tags,
    access: 'member',
    body: proofSchema,
    ok: { 200: otherSessionsRevokedAnswerSchema },
    errors: [401, 429],
  });

  api.post('/users/me/password', passwordDoc, async function changeOwnPassword(c) {
    return ok(c, valueOr(await changePassword(ctx, limits, c.req.valid('json'), settingsCaller(c))));
  });

  api.post('/users/me/email', emailDoc, async function changeOwnEmail(c) {
    return ok(c, valueOr(await requestEmailChange(ctx, limits, c.req.valid('json'), settingsCaller(c))));
  });

  api.post('/auth/email-change/confirm', perIp, confirmDoc, async function confirmNewEmail(c) {
    const { token } = c.req.valid('json');
    return ok(c, valueOr(await confirmEmailChange(ctx, token, { requestId: c.get('requestId') })));
  });

  api.get('/users/me/sessions', sessionsDoc, async function ownSessions(c) {
    return ok(c, valueOr(await listSessions(ctx, settingsCaller(c))));
  });

  api.delete('/users/me/sessions/:id', revokeOneDoc, async function endOneSession(c) {
    const proof = toProof(c.req.valid('json'));
    return ok(
      c,
      valueOr(await revokeSession(ctx, limits, c.req.valid('param').id, proof, relyingParty(ctx, c.req.url), settingsCaller(c))),
    );
  });

  api.delete('/users/me/sessions', revokeOthersDoc, async function endOtherSessions(c) {
    const proof = toProof(c.req.valid('json'));
    return ok(c, valueOr(await revokeOtherSessions(ctx, limits, proof, relyingParty(ctx, c.req.url), settingsCaller(c))));
  });
};
