/** The admin dashboard's answers: figures and the approval queue. */
import { z } from 'zod';

export const adminStatsSchema = z.object({
  pendingApprovals: z.number().int(),
  activeMembers: z.number().int(),
  /** BTC decimal string, e.g. "0.0055". */
  totalRevenue: z.string(),
  pendingPayments: z.number().int(),
  activeSubscribers: z.number().int(),
  /** Members' chat: how long the team took to answer, per tier, over the last 30 days (median in seconds; null when none). */
  chatAnswers: z.object({
    vip: z.object({ answered: z.number().int(), medianSeconds: z.number().nullable() }),
    standard: z.object({ answered: z.number().int(), medianSeconds: z.number().nullable() }),
  }),
});

/** A registration waiting for approval (oldest first). */
export const pendingUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  createdAt: z.string(),
  registrationDate: z.string(),
  geoLocation: z.object({ country: z.string(), region: z.string() }).nullable(),
});

/** One keyset page of the approval queue: `nextCursor` (null on the last page) goes back as `?after=`; `total` counts every pending account. */
export const pendingUsersAnswerSchema = z.object({
  users: z.array(pendingUserSchema),
  nextCursor: z.string().nullable(),
  total: z.number().int(),
});

export const userDecisionAnswerSchema = z.object({
  id: z.string(),
  status: z.enum(['approved', 'rejected', 'suspended']),
  message: z.string(),
});
