/**
 * Billing's figures for the admin dashboard (`GET /api/admin/stats`), read from billing's own
 * read models. The admin stats route combines them with identity's counters.
 */
import type { Queryable } from '../db/types.js';

export interface BillingStats {
  pendingPayments: number;
  /** Sum of verified payments in satoshis. */
  totalRevenueSats: number;
  /** Users whose subscription grants access now (active, or past due within the grace period). */
  activeSubscribers: number;
}

export async function billingStats(db: Queryable): Promise<BillingStats> {
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
