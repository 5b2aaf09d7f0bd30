/** The account settings and the admin's member page as the API answers them. */
import { z } from 'zod';

export const passwordChangedAnswerSchema = z.object({ message: z.string(), otherSessionsEnded: z.number().int() });
export const emailChangeRequestedAnswerSchema = z.object({ message: z.string(), pendingEmail: z.string() });
export const emailChangedAnswerSchema = z.object({ email: z.string(), message: z.string() });

/** A signed-in session of the member; `current` is the one making the call. */
export const accountSessionSchema = z
  .object({
    id: z.string(),
    userAgent: z.string().nullable(),
    createdAt: z.string(),
    lastUsedAt: z.string(),
    expiresAt: z.string(),
    current: z.boolean(),
  })
  .meta({ id: 'AccountSession' });
export const sessionsAnswerSchema = z.object({ sessions: z.array(accountSessionSchema) });
export const sessionRevokedAnswerSchema = z.object({ revoked: z.literal(true) });
export const otherSessionsRevokedAnswerSchema = z.object({ revoked: z.number().int() });

/** One line of a member's history, from their events (admin member page). */
export const memberHistoryEntrySchema = z
  .object({
    position: z.number().int(),
    at: z.string(),
    type: z.string(),
    category: z.enum(['account', 'approval', 'security', 'payment', 'subscription', 'erasure']),
    summary: z.string(),
    actorId: z.string().nullable(),
    systemActor: z.string().nullable(),
    /** In words: 'member', 'admin {email}', or the system job. */
    actor: z.string(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  })
  .meta({ id: 'MemberHistoryEntry' });
export const memberSummarySchema = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: z.string().nullable(),
    status: z.string().nullable(),
    membershipStatus: z.string().nullable(),
    subscriptionStatus: z.string().nullable(),
    createdAt: z.string().nullable(),
    geoLocation: z.object({ country: z.string(), region: z.string() }).nullable(),
  })
  .meta({ id: 'MemberSummary' });
export const memberHistoryAnswerSchema = z.object({ member: memberSummarySchema, history: z.array(memberHistoryEntrySchema) });
export const memberListRowSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: z.string(),
  status: z.string(),
  membershipStatus: z.string(),
  createdAt: z.string(),
});
export const memberSearchAnswerSchema = z.object({ users: z.array(memberListRowSchema), limit: z.number().int() });
