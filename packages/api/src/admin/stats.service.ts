/**
 * The admin dashboard's figures: identity's counters (pending approvals, active members) with
 * billing's (revenue as a BTC string, pending payments, active subscribers) and the chat's answer time
 * per tier (last 30 days), each read through the
 * owning area's queries.
 */

import type { adminStatsSchema } from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import { billingStats } from '../billing/index.js';
import { chatAnswerTimes } from '../chat/index.js';
import type { Queryable } from '../db/types.js';
import { identityCounts } from '../identity/index.js';

/** The dashboard's figures (the shared `adminStatsSchema`). */
export type AdminStats = z.infer<typeof adminStatsSchema>;

export async function adminStats(db: Queryable, now: Date): Promise<AdminStats> {
  const [identity, billing, chatAnswers] = await Promise.all([identityCounts(db), billingStats(db), chatAnswerTimes(db, now)]);
  return {
    pendingApprovals: identity.pendingApprovals,
    activeMembers: identity.activeMembers,
    totalRevenue: satsToBtc(billing.totalRevenueSats),
    pendingPayments: billing.pendingPayments,
    activeSubscribers: billing.activeSubscribers,
    chatAnswers,
  };
}
