/**
 * The registration payload's shape (spec §3): zod catches wrong types and over-long strings first
 * (naming the field). The rules themselves (spec §5 order, minimum age, password length, real UTC
 * dates) live once in `@members/ui/registration`, shared with the web form, so the server and the
 * client never disagree.
 */
import { REGISTRATION_LIMITS, registrationRequestSchema } from '@members/ui/api/schemas';
import { z } from 'zod';

export const LIMITS = REGISTRATION_LIMITS;

/** Shared with the clients (`@members/ui/api/schemas`): the web app's request type is inferred from it. */
export const registrationSchema = registrationRequestSchema;

export type RegistrationInput = z.infer<typeof registrationSchema>;

/** Login and reset accept any `local@domain` (the dev admin is admin@localhost, which z.email() refuses). */
export const loginEmail = z
  .string({ error: 'is required' })
  .max(LIMITS.email, `must be at most ${LIMITS.email} characters`)
  .regex(/^[^\s@]+@[^\s@]+$/, 'Invalid email address');
