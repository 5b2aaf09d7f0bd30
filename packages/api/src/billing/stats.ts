/**
 * Billing's figures for the admin dashboard (`GET /api/admin/stats`), read from billing's own
 * read models. The admin stats route combines them with identity's counters.
 */
import type { Queryable } from '../db/types.js';
import { readCounts } from '../eventstore/counts.js';
import { BILLING_COUNTS } from './billing.projection.js';

export interface BillingStats {
  pendingPayments: number;
  /** Sum of verified payments in satoshis. */
  totalRevenueSats: number;
  /** Users whose subscription grants access now (active, or past due within the grace period). */
  activeSubscribers: number;
}

/** Reads billing's precomputed counters (a few rows), never the payments table itself. */
export async function billingStats(db: Queryable): Promise<BillingStats> {
  const counts = await readCounts(db, BILLING_COUNTS);
  const n = (key: string) => counts.get(key)?.n ?? 0;
  return {
    pendingPayments: n('payment:submitted'),
    totalRevenueSats: counts.get('payment:verified')?.total ?? 0,
    activeSubscribers: n('subscription:active') + n('subscription:past_due'),
  };
}
