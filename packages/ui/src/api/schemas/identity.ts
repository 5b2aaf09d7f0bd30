/** Accounts, sessions and the second factor as the API answers them (spec §3 User). */
import { z } from 'zod';
import { STAFF_ROLES } from '../../access/staffRoles';
import { singleLineText } from './text';

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    role: z.enum(['admin', 'member']),
    /** An admin's staff role (@members/ui/staffRoles): what the admin screens show them; null for a member. */
    staffRole: z.enum(STAFF_ROLES).nullable(),
    status: z.enum(['pending', 'approved', 'rejected', 'suspended']),
    approved: z.boolean(),
    emailVerified: z.boolean(),
    membershipStatus: z.enum(['active', 'inactive']),
    subscriptionStatus: z.string().nullable(),
    registrationDate: z.string(),
    createdAt: z.string(),
    geoLocation: z.object({ country: z.string(), region: z.string() }).nullable(),
  })
  .meta({ id: 'User' });

/** A started session: the access token (send as `Authorization: Bearer`) and who it is for. */
export const sessionSchema = z
  .object({
    token: z.string(),
    /** Seconds until the access token expires. */
    expiresIn: z.number().int(),
    user: userSchema,
    /** An admin who must enrol a second factor before anything else (REQUIRE_ADMIN_2FA). */
    mfaEnrollmentRequired: z.literal(true).optional(),
  })
  .meta({ id: 'Session' });

/** Login's answer when a second factor is due: complete it with POST /auth/mfa/verify. */
export const mfaChallengeSchema = z.object({ mfaRequired: z.literal(true), mfaToken: z.string() }).meta({ id: 'MfaChallenge' });

export const loginAnswerSchema = z.union([sessionSchema, mfaChallengeSchema]);

export const registrationAnswerSchema = z.object({ user: userSchema, message: z.string() });

export const secondFactorStatusSchema = z
  .object({
    enabled: z.boolean(),
    pending: z.boolean(),
    recoveryCodesLeft: z.number().int(),
    /** The account must enrol before anything else (an admin when REQUIRE_ADMIN_2FA). */
    required: z.boolean(),
  })
  .meta({ id: 'SecondFactorStatus' });

/** A started enrolment: scan `otpauthUri` (as a QR code) or type `secret`; the recovery codes are shown once. */
export const secondFactorEnrolmentSchema = z.object({ secret: z.string(), otpauthUri: z.string(), recoveryCodes: z.array(z.string()) });

/** The name a holder gives a passkey ("Laptop", "Phone"); issue 44's text policy applies to it at merge. */
export const passkeyNameSchema = singleLineText({ min: 1, max: 60, empty: 'is required' });

/** One passkey as its holder sees it (issue 42): never its key. */
export const passkeySchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() })
  .meta({ id: 'Passkey' });
export const passkeysAnswerSchema = z.object({ passkeys: z.array(passkeySchema) });
export const passkeyAnswerSchema = z.object({ passkey: passkeySchema });
export const passkeyRemovedAnswerSchema = z.object({ removed: z.literal(true) });
/**
 * A passkey ceremony's start: `options` go to the browser's WebAuthn call as they are
 * (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON), its answer comes back with `ceremonyId`.
 */
export const passkeyCeremonySchema = z
  .object({ ceremonyId: z.string(), options: z.record(z.string(), z.unknown()) })
  .meta({ id: 'PasskeyCeremony' });

export const messageAnswerSchema = z.object({ message: z.string() });
export const emailVerifiedAnswerSchema = z.object({ emailVerified: z.literal(true) });
export const loggedOutAnswerSchema = z.object({ loggedOut: z.literal(true) });
export const approvalStatusSchema = z.object({ approved: z.boolean(), status: z.enum(['pending', 'approved', 'rejected', 'suspended']) });
export const profileAnswerSchema = z.object({ user: userSchema });

/** DELETE /users/me and POST /admin/users/{id}/erase: the account and its personal data are erased. */
export const erasedAnswerSchema = z.object({ erased: z.literal(true) });

/** GET /users/me/export: everything stored about the member (a JSON attachment, not an envelope). */
export const memberExportSchema = z.object({
  exportedAt: z.string(),
  site: z.string(),
  member: z.record(z.string(), z.unknown()),
  accountHistory: z.array(z.object({ at: z.string(), event: z.string(), details: z.record(z.string(), z.unknown()) })),
  payments: z.array(z.record(z.string(), z.unknown())),
  subscription: z.record(z.string(), z.unknown()).nullable(),
  subscriptionPeriods: z.array(
    z.object({
      at: z.string(),
      event: z.string(),
      planType: z.string(),
      periodStart: z.string(),
      periodEnd: z.string(),
      paymentId: z.string(),
    }),
  ),
  views: z.array(z.object({ videoId: z.string(), watchedSeconds: z.number(), viewedAt: z.string() })),
  /** The watch time the member's player reported (WatchTimeRecorded), one entry per recorded report. */
  watchTime: z.array(z.object({ videoId: z.string(), seconds: z.number(), at: z.string() })),
  secondFactor: z.object({ enabled: z.boolean(), enrolledAt: z.string().nullable(), recoveryCodesLeft: z.number().int() }),
  sessions: z.array(z.object({ id: z.string(), createdAt: z.string(), revokedAt: z.string().nullable() })),
  chatMessages: z.array(z.object({ id: z.string(), from: z.string(), text: z.string(), sentAt: z.string() })),
  customRequests: z.array(z.record(z.string(), z.unknown())),
  /** What the member wrote in live shows' chat rooms (issue 43), as it reads now (deleted messages are gone). */
  liveChatMessages: z.array(z.object({ id: z.string(), showId: z.string(), text: z.string(), postedAt: z.string() })),
  /** The member's mail settings (the chat's reply mail, on unless turned off). */
  notifications: z.object({ chatReplyMail: z.boolean() }),
  notes: z.array(z.string()),
});

/** Lengths the registration's texts may have (checked before the rules: the field is named). */
export const REGISTRATION_LIMITS = { email: 254, name: 100, password: 256 } as const;

const optionalText = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`).nullish();

/**
 * POST /auth/register (spec §3): the shape only. Every field may be missing here; the rules (spec
 * §5 order, minimum age, password length, real UTC dates) are `@members/ui/registration`'s, run by
 * the server after this and by the web form before sending.
 */
export const registrationRequestSchema = z.object({
  email: optionalText(REGISTRATION_LIMITS.email),
  password: optionalText(REGISTRATION_LIMITS.password),
  // The text policy (text.ts): no control or direction characters; emptiness is the rules' to refuse.
  firstName: singleLineText({ min: 0, max: REGISTRATION_LIMITS.name, required: 'must be a string' }).nullish(),
  lastName: singleLineText({ min: 0, max: REGISTRATION_LIMITS.name, required: 'must be a string' }).nullish(),
  dateOfBirth: optionalText(32),
  agreeToTerms: z.boolean({ error: 'must be true or false' }).nullish(),
});
