/**
 * The registration payload's shape (spec §3): zod catches wrong types and over-long strings first
 * (naming the field). The rules themselves (spec §5 order, minimum age, password length, real UTC
 * dates) live once in `@members/ui/registration`, shared with the web form, so the server and the
 * client never disagree.
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

/** Login and reset accept any `local@domain` (the dev admin is admin@localhost, which z.email() refuses). */
export const loginEmail = z
  .string({ error: 'is required' })
  .max(LIMITS.email, `must be at most ${LIMITS.email} characters`)
  .regex(/^[^\s@]+@[^\s@]+$/, 'Invalid email address');
