/**
 * Passkeys over HTTP (issue 42), beside the second factor under /auth/ (an admin who must still enrol
 * a second factor may register one, see http/auth.ts): GET /auth/passkeys, POST
 * /auth/passkeys/registration (a ceremony's options), POST /auth/passkeys (the browser's answer and a
 * name), DELETE /auth/passkeys/{id}, POST /auth/passkeys/reauthentication (to confirm ending other
 * sessions); and, signed out, POST /auth/passkeys/login/options and POST
 * /auth/passkeys/login, which answers exactly what /auth/login answers without a second factor
 * (session, refresh cookie). Use cases: passkeys.service.ts.
 */
import {
  passkeyAnswerSchema,
  passkeyCeremonySchema,
  passkeyNameSchema,
  passkeyRemovedAnswerSchema,
  passkeysAnswerSchema,
  sessionSchema,
} from '@members/ui/api/schemas';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { clientIp } from '../geo/index.js';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { deviceOf, setSessionCookies } from './cookies.js';
import { authLimitsOf, limitPerIp } from './limits.js';
import {
  listPasskeys,
  logInWithPasskey,
  loginOptions,
  reauthenticationOptions,
  registerPasskey,
  registrationOptions,
  relyingParty,
  removePasskey,
} from './passkeys.service.js';

const base64url = (max: number) =>
  z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

/**
 * A WebAuthn credential as `@simplewebauthn/browser` serialises it (RegistrationResponseJSON or
 * AuthenticationResponseJSON). Its inner fields are checked by the verification itself; here only
 * their shape and size, so nothing unbounded reaches it.
 */
const credentialSchema = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  response: z.record(z.string().max(64), z.union([z.string().max(16_384), z.number().int(), z.array(z.string().max(32)).max(16)])),
  clientExtensionResults: z.record(z.string().max(64), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

const ceremonyId = z.string({ error: 'is required' }).min(1, 'is required').max(64);
const registerSchema = z.object({ ceremonyId, name: passkeyNameSchema, credential: credentialSchema });
const loginSchema = z.object({ ceremonyId, credential: credentialSchema });
/** A passkey's answer to a re-authentication ceremony (settings.routes.ts: ending other sessions). */
export const passkeyProofSchema = loginSchema;
const passkeyIdParams = z.object({ id: base64url(1400) });

export const passkeyRoutes: Routes = (api, ctx) => {
  const limits = authLimitsOf(ctx);
  const tags: ['identity'] = ['identity'];
  const listDoc = describe({
    summary: 'My passkeys',
    description: 'Names, when each was registered and last used. Never a key.',
    tags,
    access: 'account',
    ok: { 200: passkeysAnswerSchema },
  });
  const registrationDoc = describe({
    summary: 'Start registering a passkey',
    description:
      'Options for `navigator.credentials.create` (user verification and a discoverable credential required), valid 5 minutes, once. Send the answer to POST /auth/passkeys with `ceremonyId`.',
    tags,
    access: 'account',
    ok: { 200: passkeyCeremonySchema },
  });
  const registerDoc = describe({
    summary: 'Register a passkey (the browser’s answer and a name)',
    description: 'A registered passkey counts as the second factor REQUIRE_ADMIN_2FA asks of admins.',
    tags,
    access: 'account',
    body: registerSchema,
    ok: { 201: passkeyAnswerSchema },
    errors: [400, 401, 409],
  });
  const removeDoc = describe({
    summary: 'Remove one of my passkeys',
    tags,
    access: 'account',
    params: passkeyIdParams,
    ok: { 200: passkeyRemovedAnswerSchema },
    errors: [404],
  });
  const loginOptionsDoc = describe({
    summary: 'Start signing in with a passkey',
    description: 'Options for `navigator.credentials.get` (any passkey of this site), valid 5 minutes, once.',
    tags,
    access: 'public',
    ok: { 200: passkeyCeremonySchema },
    rateLimited: true,
  });
  const loginDoc = describe({
    summary: 'Sign in with a passkey',
    description:
      'Answers what POST /auth/login answers without a second factor (session, refresh cookie): a passkey with user verification is both factors.',
    tags,
    access: 'public',
    body: loginSchema,
    ok: { 200: sessionSchema },
    errors: [400, 401, 403],
    rateLimited: true,
  });

  const reauthDoc = describe({
    summary: 'Start confirming it is me with a passkey',
    description:
      'Options for `navigator.credentials.get` limited to my passkeys, valid 5 minutes, once: the answer confirms ending other sessions (DELETE /users/me/sessions, body `passkey`). 404 without a passkey.',
    tags,
    access: 'account',
    ok: { 200: passkeyCeremonySchema },
    errors: [404],
  });

  const perIp = limitPerIp(ctx, limits);

  api.post('/auth/passkeys/reauthentication', reauthDoc, async function startPasskeyReauthentication(c) {
    return ok(c, valueOr(await reauthenticationOptions(ctx, userOf(c).id, relyingParty(ctx, c.req.url))));
  });

  api.get('/auth/passkeys', listDoc, async function ownPasskeys(c) {
    return ok(c, { passkeys: await listPasskeys(ctx, userOf(c).id) });
  });

  api.post('/auth/passkeys/registration', registrationDoc, async function startPasskeyRegistration(c) {
    return ok(c, valueOr(await registrationOptions(ctx, userOf(c).id, relyingParty(ctx, c.req.url))));
  });

  api.post('/auth/passkeys', registerDoc, async function addPasskey(c) {
    const { ceremonyId, name, credential } = c.req.valid('json');
    const input = { ceremonyId, name, response: credential as unknown as RegistrationResponseJSON };
    const passkey = valueOr(await registerPasskey(ctx, userOf(c).id, input, relyingParty(ctx, c.req.url), callerOf(c)));
    return ok(c, { passkey }, 201);
  });

  api.delete('/auth/passkeys/:id', removeDoc, async function dropPasskey(c) {
    valueOr(await removePasskey(ctx, userOf(c).id, c.req.valid('param').id, callerOf(c)));
    return ok(c, { removed: true as const });
  });

  api.post('/auth/passkeys/login/options', perIp, loginOptionsDoc, async function startPasskeyLogin(c) {
    return ok(c, await loginOptions(ctx, relyingParty(ctx, c.req.url)));
  });

  api.post('/auth/passkeys/login', perIp, loginDoc, async function passkeyLogin(c) {
    const { ceremonyId, credential } = c.req.valid('json');
    const input = { ceremonyId, response: credential as unknown as AuthenticationResponseJSON };
    const caller = { requestId: c.get('requestId') };
    const session = valueOr(
      await logInWithPasskey(ctx, limits, input, relyingParty(ctx, c.req.url), caller, deviceOf(c), clientIp(c, ctx.env)),
    );
    setSessionCookies(ctx, c, session.refresh);
    return ok(c, session.answer);
  });
};
