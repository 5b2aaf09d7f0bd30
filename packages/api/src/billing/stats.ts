/**
 * Billing's figures for the admin dashboard (`GET /api/admin/stats`), read from billing's own
 * read models. The admin stats route combines them with identity's counters.
 */
import type { Queryable } from '../db/types.js';

export interface BillingStats {
  pendingPayments: number;
  /** Sum of verified payments in satoshis. */
  totalRevenueSats: number;
  /** Users whose subscription grants access now. */
  activeSubscribers: number;
}

export async function billingStats(_db: Queryable): Promise<BillingStats> {
  // Replaced by the billing module (issue 3).
  return { pendingPayments: 0, totalRevenueSats: 0, activeSubscribers: 0 };
}
