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

/** The same figures summed over the rows themselves (a full scan): for audits, which check the counters against it. */
export async function billingStatsFromRows(db: Queryable): Promise<BillingStats> {
  const payments = await db.get<{ pending: number | null; revenue: number | null }>(
    `SELECT SUM(CASE WHEN status = 'submitted' THEN 1 ELSE 0 END) AS pending,
            SUM(CASE WHEN status = 'verified' THEN amount_sats ELSE 0 END) AS revenue
     FROM billing_payments`,
  );
  const subs = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM billing_subscriptions WHERE status IN ('active', 'past_due')`);
  return {
    pendingPayments: Number(payments?.pending ?? 0),
    totalRevenueSats: Number(payments?.revenue ?? 0),
    activeSubscribers: Number(subs?.n ?? 0),
  };
}
