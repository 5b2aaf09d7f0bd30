/**
 * The registration payload (spec §3) and its checks in spec §5 order, with the spec's messages.
 * zod catches wrong types and over-long strings first (naming the field); the ordered rules then
 * give the same first message the client would, so server and client never disagree.
 */
import { z } from 'zod';

export const LIMITS = { email: 254, name: 100, password: 256 } as const;

const optionalText = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`).nullish();

export const registrationSchema = z.object({
  email: optionalText(LIMITS.email),
  password: optionalText(LIMITS.password),
  firstName: optionalText(LIMITS.name),
  lastName: optionalText(LIMITS.name),
  dateOfBirth: optionalText(32),
  agreeToTerms: z.boolean({ error: 'must be true or false' }).nullish(),
});

export type RegistrationInput = z.infer<typeof registrationSchema>;

export interface ValidRegistration {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

export const MINIMUM_AGE = 18;
export const MIN_PASSWORD_LENGTH = 8;

const EMAIL = z.email();

/** Login and reset accept any `local@domain` (the dev admin is admin@localhost, which z.email() refuses). */
export const loginEmail = z
  .string({ error: 'is required' })
  .max(LIMITS.email, `must be at most ${LIMITS.email} characters`)
  .regex(/^[^\s@]+@[^\s@]+$/, 'Invalid email address');

/** Whole years between a YYYY-MM-DD birth date and `today` (UTC), or null when the date is not real. */
export function ageOn(dateOfBirth: string, today: Date): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const birth = new Date(Date.UTC(y, mo - 1, d));
  if (birth.getUTCFullYear() !== y || birth.getUTCMonth() !== mo - 1 || birth.getUTCDate() !== d) return null;
  if (birth.getTime() > today.getTime()) return null;
  let age = today.getUTCFullYear() - y;
  const beforeBirthday = today.getUTCMonth() < mo - 1 || (today.getUTCMonth() === mo - 1 && today.getUTCDate() < d);
  if (beforeBirthday) age -= 1;
  return age;
}

/**
 * The first problem with a registration in spec §5 order, or the cleaned registration.
 * @example checkRegistration({ email: 'a@b.c', password: 'short' }, now) // { ok: false, message: 'All fields are required' }
 */
export function checkRegistration(
  input: RegistrationInput,
  today: Date,
): { ok: true; value: ValidRegistration } | { ok: false; message: string } {
  const email = input.email?.trim() ?? '';
  const firstName = input.firstName?.trim() ?? '';
  const lastName = input.lastName?.trim() ?? '';
  const password = input.password ?? '';
  const dateOfBirth = input.dateOfBirth?.trim() ?? '';
  const fail = (message: string) => ({ ok: false as const, message });
  if (!email || !password || !firstName || !lastName) return fail('All fields are required');
  if (password.length < MIN_PASSWORD_LENGTH) return fail('Password must be at least 8 characters long');
  if (!dateOfBirth) return fail('Date of birth is required for age verification');
  const age = ageOn(dateOfBirth, today);
  if (age === null) return fail('dateOfBirth: must be a real date in the form YYYY-MM-DD');
  if (age < MINIMUM_AGE) return fail('You must be at least 18 years old to register');
  if (input.agreeToTerms !== true) return fail('You must agree to the Terms of Service');
  if (!EMAIL.safeParse(email).success) return fail('email: Invalid email address');
  return { ok: true, value: { email, password, firstName, lastName, dateOfBirth } };
}
