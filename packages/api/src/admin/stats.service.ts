/**
 * The admin dashboard's figures: identity's counters (pending approvals, active members) with
 * billing's (revenue as a BTC string, pending payments, active subscribers), each read through the
 * owning area's queries.
 */

import { satsToBtc } from '@members/ui/money';
import { billingStats } from '../billing/stats.js';
import type { Queryable } from '../db/types.js';
import { identityCounts } from '../identity/users.queries.js';

export interface AdminStats {
  pendingApprovals: number;
  activeMembers: number;
  /** BTC decimal string, e.g. "0.0055". */
  totalRevenue: string;
  pendingPayments: number;
  activeSubscribers: number;
}

export async function adminStats(db: Queryable): Promise<AdminStats> {
  const [identity, billing] = await Promise.all([identityCounts(db), billingStats(db)]);
  return {
    pendingApprovals: identity.pendingApprovals,
    activeMembers: identity.activeMembers,
    totalRevenue: satsToBtc(billing.totalRevenueSats),
    pendingPayments: billing.pendingPayments,
    activeSubscribers: billing.activeSubscribers,
  };
}
