/**
 * Identity's account use cases: register, approve and reject (admin), read and edit the profile,
 * verify the e-mail address. Each answers a `Result` and never throws for an expected refusal, so
 * routes, the CLI and jobs call them alike. The rules themselves live in `user.decider.ts` and
 * `@members/ui/registration` (shared with the web form); this file gathers their inputs (hashes, ids, time, read-model lookups).
 * Sessions are in `session.service.ts`, password resets in `password.service.ts`; later account
 * use cases (second factor, settings, export, erasure) get a `<topic>.service.ts` beside them.
 */
import { checkRegistration } from '@members/ui/registration';
import { UniqueViolation } from '../db/types.js';
import { aggregate } from '../eventstore/commandHandler.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import { enqueueMail } from '../mail/index.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { mailLimitsFor } from './mailLimits.js';
import { registrationAttemptMail } from './mails.js';
import { hashPassword } from './passwords.js';
import type { RegistrationInput } from './registration.js';
import { mayLogIn } from './session.service.js';
import { emailVerificationToken, safeEqual, verificationTokenUserId } from './tokens.js';
import { type UserCommand, type UserState, userDecider, userStream } from './user.decider.js';
import { findUserByEmail, findUserById, toUserDto, type UserDto } from './users.queries.js';
import type { UserRow } from './users.schema.js';

const users = aggregate(userDecider, userStream);

export const DUPLICATE_EMAIL = 'An account with this email already exists';
export const REGISTRATION_RECEIVED = 'Registration received. Your account is pending approval.';
export const INVALID_VERIFICATION_LINK = 'This verification link is invalid';
const USER_NOT_FOUND = 'User not found';

/**
 * Runs one command on a user's stream.
 * @example await runUserCommand(ctx, userId, { type: 'Approve', approvedBy: admin.id, now }, { actorId: admin.id })
 */
export async function runUserCommand(
  ctx: AppContext,
  userId: string,
  command: UserCommand,
  caller: Caller,
): Promise<Result<{ state: UserState; recorded: RecordedEvent[] }>> {
  const result = await users(ctx.store).handle(userId, command, eventMetadata(ctx, caller));
  if (!result.ok) return result;
  return success({ state: result.state, recorded: result.recorded });
}

export interface RegisterOptions {
  /** Where the caller's IP places them, recorded with the registration (null when unknown). */
  geo: { country: string; region: string } | null;
  caller: Caller;
}

/** Validates (spec §5 order), checks the address is free, hashes the password and records the registration. */
export async function register(ctx: AppContext, input: RegistrationInput, opts: RegisterOptions): Promise<Result<UserDto | undefined>> {
  const checked = checkRegistration(input, ctx.clock.now());
  if (!checked.ok) return failure('validation.invalid_input', checked.message);
  const { password, ...r } = checked.value;
  const holder = await findUserByEmail(ctx.db, r.email);
  if (holder) return registrationWithUsedAddress(ctx, holder, { ...r, password }, opts);
  const data = {
    ...r,
    userId: ctx.ids.next(),
    passwordHash: await hashPassword(password),
    role: 'member' as const,
    geoCountry: opts.geo?.country ?? null,
    geoRegion: opts.geo?.region ?? null,
  };
  try {
    const ran = await runUserCommand(ctx, data.userId, { type: 'Register', data, now: ctx.clock.now().toISOString() }, opts.caller);
    if (!ran.ok) return ran;
  } catch (err) {
    // Two registrations with one address at once: the read model's unique index decides, and the
    // second is answered like any registration with a used address (its password is hashed already).
    if (!(err instanceof UniqueViolation)) throw err;
    const winner = await findUserByEmail(ctx.db, r.email);
    if (!winner) throw err;
    return registrationWithUsedAddress(ctx, winner, { ...r, password: null }, opts);
  }
  const user = await findUserById(ctx.db, data.userId);
  return success(user && toUserDto(user));
}

/**
 * A registration with an address that has an account answers what a new registration answers (201,
 * the same shape: a pending account that never exists) after the same work (the password hashed),
 * so registration does not tell who has an account here. The holder is told instead, by a mail
 * queued at once (no event: nothing happened to the account), within the mail limits.
 */
async function registrationWithUsedAddress(
  ctx: AppContext,
  holder: UserRow,
  r: { email: string; firstName: string; lastName: string; dateOfBirth: string; password: string | null },
  opts: RegisterOptions,
): Promise<Result<UserDto>> {
  if (r.password !== null) await hashPassword(r.password);
  const now = ctx.clock.now();
  if (mayLogIn(holder) && (await mailLimitsFor(ctx).allow('request', holder.email, holder.id))) {
    const origin = (opts.caller.origin ?? ctx.env.PUBLIC_URL ?? `http://localhost:${ctx.env.PORT}`).replace(/\/+$/, '');
    const mail = registrationAttemptMail(ctx.site.siteName, holder.first_name, `${origin}/login`, `${origin}/auth/forgot-password`);
    const key = `registration-attempt:${ctx.ids.next()}`;
    await enqueueMail(ctx.db.dialect, ctx.db, { key, subjectId: holder.id, to: holder.email, ...mail }, now);
  }
  const at = now.toISOString();
  return success(
    toUserDto({
      id: ctx.ids.next(),
      email: r.email,
      email_lower: r.email.toLowerCase(),
      first_name: r.firstName,
      last_name: r.lastName,
      date_of_birth: r.dateOfBirth,
      password_hash: '',
      role: 'member',
      status: 'pending',
      approved: 0,
      email_verified: 0,
      geo_country: opts.geo?.country ?? null,
      geo_region: opts.geo?.region ?? null,
      created_at: at,
      approved_at: null,
      rejected_at: null,
      membership_status: 'inactive',
      subscription_status: null,
      erased_at: null,
      staff_role: null,
      staff_removed_at: null,
    }),
  );
}

export async function approveUser(ctx: AppContext, userId: string, caller: Caller & { actorId: string }): Promise<Result<void>> {
  const ran = await runUserCommand(
    ctx,
    userId,
    { type: 'Approve', approvedBy: caller.actorId, now: ctx.clock.now().toISOString() },
    caller,
  );
  return ran.ok ? success(undefined) : ran;
}

export async function rejectUser(
  ctx: AppContext,
  userId: string,
  reason: string | null | undefined,
  caller: Caller & { actorId: string },
): Promise<Result<void>> {
  const command = { type: 'Reject', rejectedBy: caller.actorId, reason: reason || null, now: ctx.clock.now().toISOString() } as const;
  const ran = await runUserCommand(ctx, userId, command, caller);
  return ran.ok ? success(undefined) : ran;
}

export async function getProfile(ctx: AppContext, userId: string): Promise<Result<UserDto>> {
  const row = await findUserById(ctx.db, userId);
  return row ? success(toUserDto(row)) : failure('user.not_found', USER_NOT_FOUND);
}

/** Only the names are editable; a field left out keeps its value. */
export async function updateProfile(
  ctx: AppContext,
  userId: string,
  changes: { firstName?: string | undefined; lastName?: string | undefined },
  caller: Caller,
): Promise<Result<UserDto>> {
  const current = await getProfile(ctx, userId);
  if (!current.ok) return current;
  const command = {
    type: 'UpdateProfile',
    firstName: changes.firstName ?? current.value.firstName,
    lastName: changes.lastName ?? current.value.lastName,
    now: ctx.clock.now().toISOString(),
  } as const;
  const ran = await runUserCommand(ctx, userId, command, caller);
  if (!ran.ok) return ran;
  return getProfile(ctx, userId);
}

/** Marks the address verified when the mailed token matches the account's current address. */
export async function verifyEmail(
  ctx: AppContext,
  token: string,
  caller: Omit<Caller, 'actorId'>,
): Promise<Result<{ emailVerified: true }>> {
  const userId = verificationTokenUserId(token);
  const user = userId ? await findUserById(ctx.db, userId) : undefined;
  if (!user || !safeEqual(token, emailVerificationToken(tokenSecret(ctx), user.id, user.email)))
    return failure('auth.invalid_link', INVALID_VERIFICATION_LINK);
  const ran = await runUserCommand(
    ctx,
    user.id,
    { type: 'VerifyEmail', email: user.email, now: ctx.clock.now().toISOString() },
    { ...caller, actorId: user.id },
  );
  return ran.ok ? success({ emailVerified: true }) : ran;
}
