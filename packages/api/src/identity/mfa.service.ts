/**
 * Second-factor use cases: start the TOTP enrolment (secret encrypted into `second_factor_secrets`,
 * ten recovery codes shown once), confirm it with a correct code, complete a login with a code or
 * a recovery code, and remove it (password and a code). A TOTP code is accepted once: its time step
 * is claimed in the database. Wrong codes at login count as failed logins (limits.ts).
 * Events: SecondFactorEnrolmentStarted, SecondFactorEnrolled, RecoveryCodeUsed, SecondFactorRemoved.
 */
import type { secondFactorStatusSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { aggregate } from '../eventstore/commandHandler.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type AuthLimits, loginBlocked } from './limits.js';
import { mfaTokenMatchesPassword, readMfaToken } from './mfaToken.js';
import { verifyPassword } from './passwords.js';
import { ALREADY_ENABLED, INVALID_CODE, INVALID_PROOF, type SecondFactorCommand, secondFactorDecider } from './secondFactor.decider.js';
import { adminLacksSecondFactor, claimTimeStep, deleteSecret, findSecondFactor, findSecret, saveSecret } from './secondFactors.js';
import { type Device, type IssuedSession, issueSession, mayLogIn } from './session.service.js';
import {
  decryptSecret,
  encryptSecret,
  looksLikeTotp,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpTimeStep,
  totpUri,
} from './totp.js';
import { userStream } from './user.decider.js';
import { findUserById } from './users.queries.js';

const secondFactors = aggregate(secondFactorDecider, userStream);

export const MFA_SESSION_EXPIRED = 'Your sign-in attempt has expired. Please log in again.';
export const MFA_CHALLENGE_USED = 'This sign-in attempt has already been used. Please log in again.';
export const CODE_ALREADY_USED = 'This code has already been used. Wait for the next code from your authenticator app.';

export function mfaKeySecret(ctx: AppContext): string {
  const secret = ctx.env.MFA_KEY_SECRET;
  if (!secret) throw new Error('MFA_KEY_SECRET is not set (main.ts sets a dev default)');
  return secret;
}

async function runSecondFactorCommand(
  ctx: AppContext,
  userId: string,
  command: SecondFactorCommand,
  caller: Caller,
): Promise<Result<void>> {
  const result = await secondFactors(ctx.store).handle(userId, command, eventMetadata(ctx, caller));
  return result.ok ? success(undefined) : result;
}

/** The shared `secondFactorStatusSchema`. */
export type SecondFactorStatus = z.infer<typeof secondFactorStatusSchema>;

export async function secondFactorStatus(ctx: AppContext, userId: string): Promise<Result<SecondFactorStatus>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  const row = await findSecondFactor(ctx.db, userId);
  const enabled = row?.status === 'enabled';
  return success({
    enabled,
    pending: row?.status === 'pending',
    recoveryCodesLeft: enabled ? Number(row?.recovery_codes_left ?? 0) : 0,
    // A passkey is a second factor too (secondFactors.ts `adminLacksSecondFactor`).
    required: ctx.env.REQUIRE_ADMIN_2FA && (await adminLacksSecondFactor(ctx.db, userId)),
  });
}

export interface Enrolment {
  /** For manual entry in the authenticator app (base32). */
  secret: string;
  /** The `otpauth://totp/…` URI; the clients show it as a QR code. */
  otpauthUri: string;
  /** Shown once; only their hashes are kept. */
  recoveryCodes: string[];
}

/** Starts (or restarts) the enrolment: a new secret and new recovery codes, active once confirmed. */
export async function startEnrolment(ctx: AppContext, userId: string, caller: Caller): Promise<Result<Enrolment>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  const secret = newTotpSecret();
  const recoveryCodes = newRecoveryCodes();
  const enrolmentId = ctx.ids.next();
  const now = ctx.clock.now();
  // 1. An account with a factor already enabled keeps its secret (the decider says the same in 3.).
  if ((await findSecondFactor(ctx.db, userId))?.status === 'enabled') return failure('mfa.already_enabled', ALREADY_ENABLED);
  // 2. The encrypted secret, keyed by this enrolment (a confirm only accepts the matching one).
  await saveSecret(ctx.db, userId, enrolmentId, encryptSecret(mfaKeySecret(ctx), userId, secret), now);
  // 3. The event, with the recovery codes' hashes.
  const command = {
    type: 'StartSecondFactorEnrolment',
    enrolmentId,
    recoveryCodeHashes: recoveryCodes.map(recoveryCodeHash),
    now: now.toISOString(),
  } as const;
  const ran = await runSecondFactorCommand(ctx, userId, command, caller);
  if (!ran.ok) return ran;
  return success({ secret, otpauthUri: totpUri(secret, user.email, ctx.site.siteName), recoveryCodes });
}

/** The step a TOTP code matches for the stored secret of `enrolmentId`, claimed so it is used once. */
async function acceptTotp(ctx: AppContext, userId: string, enrolmentId: string, code: string): Promise<Result<void>> {
  const stored = await findSecret(ctx.db, userId);
  const secret = stored && stored.enrolment_id === enrolmentId ? decryptSecret(mfaKeySecret(ctx), userId, stored.secret_ciphertext) : null;
  const step = secret ? totpTimeStep(secret, code.replace(/\s/g, ''), ctx.clock.now()) : null;
  if (step === null) return failure('mfa.invalid_code', INVALID_CODE);
  if (!(await claimTimeStep(ctx.db, userId, step))) return failure('mfa.code_used', CODE_ALREADY_USED);
  return success(undefined);
}

/** Activates the pending enrolment when the code is right (and spends that code's time step). */
export async function confirmEnrolment(ctx: AppContext, userId: string, code: string, caller: Caller): Promise<Result<SecondFactorStatus>> {
  const row = await findSecondFactor(ctx.db, userId);
  const codeOk = row?.status === 'pending' ? await acceptTotp(ctx, userId, row.enrolment_id, code) : success(undefined);
  const command = {
    type: 'ConfirmSecondFactor',
    enrolmentId: row?.enrolment_id ?? '',
    codeValid: codeOk.ok,
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runSecondFactorCommand(ctx, userId, command, caller);
  if (!ran.ok) return !codeOk.ok && codeOk.error.code === 'mfa.code_used' ? failure('mfa.enrolment_code_invalid', CODE_ALREADY_USED) : ran;
  return secondFactorStatus(ctx, userId);
}

/** A TOTP code or a recovery code for an enabled factor; the recovery code is spent (an event). */
export async function checkSecondFactor(ctx: AppContext, userId: string, code: string, caller: Caller): Promise<Result<void>> {
  const row = await findSecondFactor(ctx.db, userId);
  if (row?.status !== 'enabled') return failure('mfa.invalid_code', INVALID_CODE);
  if (looksLikeTotp(code)) return acceptTotp(ctx, userId, row.enrolment_id, code);
  const command = { type: 'UseRecoveryCode', codeHash: recoveryCodeHash(code), now: ctx.clock.now().toISOString() } as const;
  return runSecondFactorCommand(ctx, userId, command, caller);
}

/**
 * The second step of a login: the challenge token plus a code give the session login would have given,
 * once. The token is claimed before the code is checked (atomically, shared by every process on
 * PostgreSQL) and released only when the code is wrong, so one token never gives two sessions, even
 * with two right codes at once; wrong codes count as failed logins from `address`.
 */
export async function completeMfaLogin(
  ctx: AppContext,
  limits: AuthLimits,
  input: { mfaToken: string; code: string },
  caller: Omit<Caller, 'actorId'>,
  device?: Device,
  address = 'unknown',
): Promise<Result<IssuedSession>> {
  const claims = await readMfaToken(ctx, input.mfaToken);
  const user = claims ? await findUserById(ctx.db, claims.userId) : undefined;
  if (!claims || !user || !mfaTokenMatchesPassword(claims.pwd, user.password_hash))
    return failure('mfa.challenge_expired', MFA_SESSION_EXPIRED);
  const blocked = await loginBlocked(ctx, limits, user.email_lower, address);
  if (blocked) return blocked;
  if (!mayLogIn(user)) return failure('mfa.challenge_expired', MFA_SESSION_EXPIRED);
  if (!(await limits.spentChallenges.hit(claims.attemptId))) return failure('mfa.challenge_expired', MFA_CHALLENGE_USED);
  const checked = await checkSecondFactor(ctx, user.id, input.code, { ...caller, actorId: user.id });
  if (!checked.ok) {
    await limits.spentChallenges.reset(claims.attemptId);
    await limits.failedLogins.hit(user.email_lower, address);
    return checked;
  }
  await limits.failedLogins.reset(user.email_lower, address);
  return success(await issueSession(ctx, user, undefined, device));
}

/** Removes the factor after the password and a code (or recovery code); wrong proofs count as failed logins. */
export async function disableSecondFactor(
  ctx: AppContext,
  limits: AuthLimits,
  userId: string,
  input: { password: string; code: string },
  caller: Caller,
): Promise<Result<SecondFactorStatus>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return failure('user.not_found', 'User not found');
  if ((await findSecondFactor(ctx.db, userId))?.status !== 'enabled') return runDisable(ctx, userId, false, caller);
  const blocked = await loginBlocked(ctx, limits, user.email_lower);
  if (blocked) return blocked;
  const passwordOk = await verifyPassword(user.password_hash, input.password);
  const codeOk = passwordOk && (await checkSecondFactor(ctx, userId, input.code, caller)).ok;
  if (!passwordOk || !codeOk) {
    await limits.failedLogins.hit(user.email_lower);
    return failure('mfa.invalid_code', INVALID_PROOF);
  }
  return runDisable(ctx, userId, true, caller);
}

async function runDisable(ctx: AppContext, userId: string, proofValid: boolean, caller: Caller): Promise<Result<SecondFactorStatus>> {
  const command = {
    type: 'RemoveSecondFactor',
    proofValid,
    removedBy: caller.actorId ?? caller.actor ?? userId,
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runSecondFactorCommand(ctx, userId, command, caller);
  if (!ran.ok) return ran;
  await deleteSecret(ctx.db, userId);
  return secondFactorStatus(ctx, userId);
}

/**
 * An operator's removal for a member who lost both the device and the recovery codes (after checking
 * who they are out of band): `pnpm cli mfa reset EMAIL`. Recorded as `SecondFactorRemoved` by the actor.
 */
export async function resetSecondFactor(
  ctx: AppContext,
  userId: string,
  caller: Caller & { actor: string },
): Promise<Result<SecondFactorStatus>> {
  return runDisable(ctx, userId, true, caller);
}
