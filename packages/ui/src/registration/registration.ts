/**
 * The registration and login rules of spec §5 and §9, written once: the API enforces them on
 * `POST /api/auth/register` and the web form checks them before sending, so both give the same
 * first message. Dates are calendar dates in UTC, the server's clock: a birthday does not move
 * with the visitor's time zone, and an impossible date (`1990-02-31`) is refused, never rolled over.
 * No React, no I/O, no zod at run time (this module is in the register and login chunks of the web
 * app; the payload's type comes from the shared request schema, a type-only import).
 */
import type { z } from 'zod';
import type { registrationRequestSchema } from '../api/schemas/identity';

/** Spec §9: minimum age 18, minimum password length 8. */
export const MIN_AGE = 18;
export const MIN_PASSWORD_LENGTH = 8;

/**
 * A password's length in characters, each Unicode code point counted once (NIST SP 800-63B
 * §5.1.1.2), as zod's `min`/`max` count on the API's other password fields: an emoji is one
 * character, not the two UTF-16 units `string.length` counts.
 * @example passwordLength('😀😀') // 2
 */
export const passwordLength = (password: string): number => Array.from(password).length;

/** The spec's words, exactly (§5), plus the two checks the server adds beyond the spec. */
export const REGISTRATION_MESSAGES = {
  fieldsRequired: 'All fields are required',
  passwordTooShort: 'Password must be at least 8 characters long',
  passwordsDiffer: 'Passwords do not match',
  dateOfBirthRequired: 'Date of birth is required for age verification',
  dateOfBirthInvalid: 'dateOfBirth: must be a real date in the form YYYY-MM-DD',
  tooYoung: 'You must be at least 18 years old to register',
  termsRequired: 'You must agree to the Terms of Service',
  ageNotCertified: 'You must verify that you are 18 years or older',
  emailInvalid: 'email: Invalid email address',
} as const;

/** The registration payload as sent (spec §3; the shared request schema); the server may see any field missing. */
export type RegistrationPayload = z.input<typeof registrationRequestSchema>;

/** The web form: the payload plus the two checks that stay in the browser (spec §3). */
export interface RegistrationForm {
  firstName: string;
  lastName: string;
  email: string;
  dateOfBirth: string;
  password: string;
  confirmPassword: string;
  agreeToTerms: boolean;
  ageCertified: boolean;
}

/** A registration that passed every rule, trimmed as it will be stored. */
export interface ValidRegistration {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * zod's `z.email()` pattern, copied so the browser chunk does not carry zod; a unit test keeps it
 * equal to zod's. The API's zod schemas check types and lengths before these rules run.
 */
export const EMAIL_PATTERN = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/**
 * Whole years between a YYYY-MM-DD birth date and the instant `today`, counted on the UTC calendar;
 * null when the date is not a real calendar date or lies in the future.
 * @example ageOn('2008-11-23', new Date('2026-11-23T02:00:00Z')) // 18, whatever the local zone
 */
export function ageOn(dateOfBirth: string, today: Date): number | null {
  const m = DATE.exec(dateOfBirth);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const birth = new Date(Date.UTC(y, mo - 1, d));
  // Date.UTC rolls 31 February over into March; a real date survives the round trip.
  if (birth.getUTCFullYear() !== y || birth.getUTCMonth() !== mo - 1 || birth.getUTCDate() !== d) return null;
  if (birth.getTime() > today.getTime()) return null;
  let age = today.getUTCFullYear() - y;
  const beforeBirthday = today.getUTCMonth() < mo - 1 || (today.getUTCMonth() === mo - 1 && today.getUTCDate() < d);
  if (beforeBirthday) age -= 1;
  return age;
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** The register date picker's maximum (spec §2): today (UTC) minus 18 years, as YYYY-MM-DD. */
export function maxBirthDate(today: Date): string {
  const y = today.getUTCFullYear() - MIN_AGE;
  const mo = today.getUTCMonth() + 1;
  let d = today.getUTCDate();
  // 29 February has no twin in a non-leap year: the last allowed day is the 28th.
  if (mo === 2 && d === 29 && !isLeap(y)) d = 28;
  return `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

type Checked = { ok: true; value: ValidRegistration } | { ok: false; message: string };

/**
 * The one ordered rule list of spec §5. `browser` holds the two fields that never leave the
 * browser; the server has no such fields and skips those two steps.
 */
function check(input: RegistrationPayload, today: Date, browser?: { confirmPassword: string; ageCertified: boolean }): Checked {
  const email = input.email?.trim() ?? '';
  const firstName = input.firstName?.trim() ?? '';
  const lastName = input.lastName?.trim() ?? '';
  const password = input.password ?? '';
  const dateOfBirth = input.dateOfBirth?.trim() ?? '';
  const fail = (message: string): Checked => ({ ok: false, message });
  if (!email || !password || !firstName || !lastName) return fail(REGISTRATION_MESSAGES.fieldsRequired);
  if (passwordLength(password) < MIN_PASSWORD_LENGTH) return fail(REGISTRATION_MESSAGES.passwordTooShort);
  if (browser && password !== browser.confirmPassword) return fail(REGISTRATION_MESSAGES.passwordsDiffer);
  if (!dateOfBirth) return fail(REGISTRATION_MESSAGES.dateOfBirthRequired);
  const age = ageOn(dateOfBirth, today);
  if (age === null) return fail(REGISTRATION_MESSAGES.dateOfBirthInvalid);
  if (age < MIN_AGE) return fail(REGISTRATION_MESSAGES.tooYoung);
  if (input.agreeToTerms !== true) return fail(REGISTRATION_MESSAGES.termsRequired);
  if (browser && !browser.ageCertified) return fail(REGISTRATION_MESSAGES.ageNotCertified);
  if (!EMAIL_PATTERN.test(email)) return fail(REGISTRATION_MESSAGES.emailInvalid);
  return { ok: true, value: { email, password, firstName, lastName, dateOfBirth } };
}

/**
 * The server's check of a registration payload: the first problem in spec §5 order, or the cleaned registration.
 * @example checkRegistration({ email: 'a@b.c', password: 'short' }, now) // { ok: false, message: 'All fields are required' }
 */
export function checkRegistration(input: RegistrationPayload, today: Date): Checked {
  return check(input, today);
}

/**
 * The web form's check: the same rules plus the confirmation and the age certification; the
 * first failing rule's message, or null when the form may be sent.
 * @example validateRegistration({ ...form, password: 'short' }, new Date()) // 'Password must be at least 8 characters long'
 */
export function validateRegistration(form: RegistrationForm, today: Date = new Date()): string | null {
  const r = check(form, today, { confirmPassword: form.confirmPassword, ageCertified: form.ageCertified });
  return r.ok ? null : r.message;
}

const LOGIN_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Login needs a valid e-mail format and a non-empty password (spec §5). */
export function validateLogin(email: string, password: string): string | null {
  if (!LOGIN_EMAIL.test(email.trim())) return 'Please enter a valid email address';
  if (!password) return 'Please enter your password';
  return null;
}
