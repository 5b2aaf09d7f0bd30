/**
 * Passkey use cases (WebAuthn through @simplewebauthn/server, issue 42): register one (options, then
 * the browser's answer), sign in with one (options, then the answer: a full session, no TOTP step),
 * list and remove them. Every ceremony's challenge is single-use and lives five minutes
 * (passkeys.ts); user verification is required, so a passkey is two factors on its own (held, and
 * unlocked by a PIN or a biometric) and counts as the second factor REQUIRE_ADMIN_2FA asks of admins.
 * The relying party is PUBLIC_URL's host (browsers refuse an IP address); without PUBLIC_URL, in
 * development, the request's own origin, as the rest of the app does.
 * Events: PasskeyRegistered, PasskeyUsed, PasskeyRemoved (passkey.decider.ts).
 */
import { randomBytes } from 'node:crypto';
import type { passkeySchema } from '@members/ui/api/schemas';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { z } from 'zod';
import { aggregate } from '../eventstore/commandHandler.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type AuthLimits, loginBlocked } from './limits.js';
import { PASSKEY_ALREADY_REGISTERED, PASSKEY_NOT_VERIFIED, type PasskeyCommand, passkeyDecider } from './passkey.decider.js';
import { findPasskey, type PasskeyRow, passkeysOf, saveChallenge, takeChallenge } from './passkeys.js';
import { type Device, type IssuedSession, issueSession, mayLogIn, SUSPENDED_LOGIN } from './session.service.js';
import { userStream } from './user.decider.js';
import { findUserById } from './users.queries.js';

const passkeys = aggregate(passkeyDecider, userStream);

/** How long a ceremony's challenge waits for the browser's answer (the options' timeout too). */
export const CEREMONY_MS = 5 * 60 * 1000;

export const CEREMONY_EXPIRED = 'This passkey request has expired. Please try again.';

/** Who the passkeys are for: the site's host and origin. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** PUBLIC_URL's host and origin; without PUBLIC_URL (development), the request's. */
export function relyingParty(ctx: AppContext, requestUrl: string): RelyingParty {
  const url = new URL(ctx.env.PUBLIC_URL ?? requestUrl);
  return { id: url.hostname, origin: url.origin };
}

/** The shared `passkeySchema`: what the holder sees of one passkey. */
export type PasskeyDto = z.infer<typeof passkeySchema>;

const toDto = (row: PasskeyRow): PasskeyDto => ({ id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at });

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const fromBase64url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));

async function runPasskeyCommand(ctx: AppContext, userId: string, command: PasskeyCommand, caller: Caller): Promise<Result<void>> {
  const result = await passkeys(ctx.store).handle(userId, command, eventMetadata(ctx, caller));
  return result.ok ? success(undefined) : result;
}

export async function listPasskeys(ctx: AppContext, userId: string): Promise<PasskeyDto[]> {
  return (await passkeysOf(ctx.db, userId)).map(toDto);
}

/** The options the browser's `navigator.credentials.create` takes, and the ceremony they belong to. */
export async function registrationOptions(
  ctx: AppContext,
  userId: string,
  rp: RelyingParty,
): Promise<Result<{ ceremonyId: string; options: PublicKeyCredentialCreationOptionsJSON }>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  const existing = await passkeysOf(ctx.db, userId);
  const options = await generateRegistrationOptions({
    rpName: ctx.site.siteName,
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    userDisplayName: `${user.first_name} ${user.last_name}`.trim(),
    attestationType: 'none',
    timeout: CEREMONY_MS,
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: JSON.parse(p.transports) as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const ceremonyId = ctx.ids.next();
  const now = ctx.clock.now();
  await saveChallenge(ctx.db, {
    id: ceremonyId,
    purpose: 'register',
    userId,
    challenge: options.challenge,
    expiresAt: new Date(now.getTime() + CEREMONY_MS),
    now,
  });
  return success({ ceremonyId, options });
}

/** Verifies the browser's answer to `ceremonyId` and registers the passkey under `name`. */
export async function registerPasskey(
  ctx: AppContext,
  userId: string,
  input: { ceremonyId: string; name: string; response: RegistrationResponseJSON },
  rp: RelyingParty,
  caller: Caller,
): Promise<Result<PasskeyDto>> {
  const challenge = await takeChallenge(ctx.db, input.ceremonyId, 'register', userId, ctx.clock.now());
  if (!challenge) return failure('passkey.ceremony_expired', CEREMONY_EXPIRED);
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(() => undefined);
  const credential = verification?.verified ? verification.registrationInfo.credential : undefined;
  // Credential ids are unique site-wide: an attestation naming one already registered (to anyone,
  // 'none' attestation lets the client choose the id) registers nothing and learns nothing of it.
  if (credential && (await findPasskey(ctx.db, credential.id))) return failure('passkey.already_registered', PASSKEY_ALREADY_REGISTERED);
  const ran = await runPasskeyCommand(
    ctx,
    userId,
    {
      type: 'RegisterPasskey',
      passkeyId: credential?.id ?? input.response.id,
      name: input.name,
      publicKey: credential ? base64url(credential.publicKey) : '',
      counter: credential?.counter ?? 0,
      transports: credential?.transports ?? [],
      verified: Boolean(credential),
      now: ctx.clock.now().toISOString(),
    },
    caller,
  );
  if (!ran.ok) return ran;
  const row = await findPasskey(ctx.db, credential?.id ?? '');
  if (!row || row.user_id !== userId) return failure('passkey.not_found', 'Passkey not found');
  return success(toDto(row));
}

/** Removes one of the holder's passkeys (another account's is not found). */
export async function removePasskey(ctx: AppContext, userId: string, passkeyId: string, caller: Caller): Promise<Result<void>> {
  const command = { type: 'RemovePasskey', passkeyId, removedBy: caller.actorId ?? userId, now: ctx.clock.now().toISOString() } as const;
  return runPasskeyCommand(ctx, userId, command, caller);
}

/** Sign-in options: any passkey of this site (discoverable credentials: the browser offers the account). */
export async function loginOptions(
  ctx: AppContext,
  rp: RelyingParty,
): Promise<{ ceremonyId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'required',
    timeout: CEREMONY_MS,
    challenge: randomBytes(32),
  });
  const ceremonyId = ctx.ids.next();
  const now = ctx.clock.now();
  await saveChallenge(ctx.db, {
    id: ceremonyId,
    purpose: 'login',
    userId: null,
    challenge: options.challenge,
    expiresAt: new Date(now.getTime() + CEREMONY_MS),
    now,
  });
  return { ceremonyId, options };
}

/** The assertion checked with the stored key: the user handle, the challenge, the origin, user verification. */
async function verifyAssertion(
  userId: string,
  passkey: PasskeyRow,
  challenge: string,
  response: AuthenticationResponseJSON,
  rp: RelyingParty,
) {
  // The account the authenticator answered for must be the one the credential was registered to.
  const handle = response.response.userHandle;
  if (handle && handle !== base64url(new TextEncoder().encode(userId))) return undefined;
  return verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.id,
      publicKey: fromBase64url(passkey.public_key),
      counter: Number(passkey.counter),
      transports: JSON.parse(passkey.transports) as AuthenticatorTransportFuture[],
    },
    requireUserVerification: true,
  }).catch(() => undefined);
}

/**
 * A sign-in with a passkey: the challenge is taken once, the signature checked with the stored key
 * (user verification required), the counter recorded (`PasskeyUsed`). It answers the session a
 * password and a second factor would have; a suspended account is refused as at a password sign-in.
 * A failed check counts as a failed login of the passkey's account from `address`.
 */
export async function logInWithPasskey(
  ctx: AppContext,
  limits: AuthLimits,
  input: { ceremonyId: string; response: AuthenticationResponseJSON },
  rp: RelyingParty,
  caller: Omit<Caller, 'actorId'>,
  device?: Device,
  address = 'unknown',
): Promise<Result<IssuedSession>> {
  const challenge = await takeChallenge(ctx.db, input.ceremonyId, 'login', null, ctx.clock.now());
  if (!challenge) return failure('passkey.ceremony_expired', CEREMONY_EXPIRED);
  const passkey = await findPasskey(ctx.db, input.response.id);
  const user = passkey ? await findUserById(ctx.db, passkey.user_id) : undefined;
  if (!passkey || !user) return failure('passkey.not_verified', PASSKEY_NOT_VERIFIED);
  const blocked = await loginBlocked(ctx, limits, user.email_lower, address);
  if (blocked) return blocked;
  const verification = await verifyAssertion(user.id, passkey, challenge, input.response, rp);
  // A suspended account is refused as at a password sign-in, its passkey's use not recorded.
  if (verification?.verified && !mayLogIn(user)) return failure('auth.login_suspended', SUSPENDED_LOGIN);
  const ran = await runPasskeyCommand(
    ctx,
    user.id,
    {
      type: 'UsePasskey',
      passkeyId: passkey.id,
      counter: verification?.authenticationInfo.newCounter ?? 0,
      verified: Boolean(verification?.verified),
      now: ctx.clock.now().toISOString(),
    },
    { ...caller, actorId: user.id },
  );
  if (!ran.ok) {
    await limits.failedLogins.hit(user.email_lower, address);
    return ran;
  }
  await limits.failedLogins.reset(user.email_lower, address);
  return success(await issueSession(ctx, user, undefined, device));
}

/** Options to prove it is still the holder with one of their passkeys (re-authentication). */
export async function reauthenticationOptions(
  ctx: AppContext,
  userId: string,
  rp: RelyingParty,
): Promise<Result<{ ceremonyId: string; options: PublicKeyCredentialRequestOptionsJSON }>> {
  const own = await passkeysOf(ctx.db, userId);
  if (own.length === 0) return failure('passkey.not_found', 'You have no passkey. Confirm with your password.');
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'required',
    timeout: CEREMONY_MS,
    allowCredentials: own.map((p) => ({ id: p.id, transports: JSON.parse(p.transports) as AuthenticatorTransportFuture[] })),
  });
  const ceremonyId = ctx.ids.next();
  const now = ctx.clock.now();
  await saveChallenge(ctx.db, {
    id: ceremonyId,
    purpose: 'reauth',
    userId,
    challenge: options.challenge,
    expiresAt: new Date(now.getTime() + CEREMONY_MS),
    now,
  });
  return success({ ceremonyId, options });
}

/**
 * The holder proves themselves again with one of their own passkeys (a ceremony they started, once);
 * the use is recorded, a failure counts as a failed login.
 */
export async function checkPasskeyProof(
  ctx: AppContext,
  limits: AuthLimits,
  userId: string,
  input: { ceremonyId: string; response: AuthenticationResponseJSON },
  rp: RelyingParty,
  caller: Caller,
): Promise<Result<void>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  const blocked = await loginBlocked(ctx, limits, user.email_lower);
  if (blocked) return blocked;
  const challenge = await takeChallenge(ctx.db, input.ceremonyId, 'reauth', userId, ctx.clock.now());
  if (!challenge) return failure('passkey.ceremony_expired', CEREMONY_EXPIRED);
  const passkey = await findPasskey(ctx.db, input.response.id);
  const verification = passkey?.user_id === userId ? await verifyAssertion(userId, passkey, challenge, input.response, rp) : undefined;
  const ran = await runPasskeyCommand(
    ctx,
    userId,
    {
      type: 'UsePasskey',
      passkeyId: passkey?.id ?? input.response.id,
      counter: verification?.authenticationInfo.newCounter ?? 0,
      verified: Boolean(verification?.verified),
      now: ctx.clock.now().toISOString(),
    },
    caller,
  );
  if (!ran.ok) await limits.failedLogins.hit(user.email_lower);
  return ran;
}
