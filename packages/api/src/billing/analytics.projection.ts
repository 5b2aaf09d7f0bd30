/**
 * Per-day figures for the admin charts (`billing_daily`: one row per day and metric), projected
 * from the log so a rebuild gives the same series: verified revenue and payments, registrations and
 * approvals (identity's events), and the number of subscriptions granting access at the end of the
 * day (written after every subscription event; days without events carry the last value forward).
 * Days are UTC dates of the event's time.
 */

import type { analyticsDaySchema, analyticsSchema } from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import type { Queryable } from '../db/types.js';
import { moveDaily, sumCounts } from '../eventstore/counts.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { findUserById } from '../identity/index.js';
import { BILLING_COUNTS, eventTime } from './billing.projection.js';
import { SUBSCRIPTION_EVENT_TYPES } from './subscription.decider.js';

const SUBSCRIPTION_TYPES = new Set<string>(SUBSCRIPTION_EVENT_TYPES);

export type DailyMetric = 'revenue_sats' | 'verified_payments' | 'registrations' | 'approvals' | 'active_subscriptions';

export const ANALYTICS_SCHEMA = `
CREATE TABLE IF NOT EXISTS billing_daily (
  day TEXT NOT NULL,
  metric TEXT NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (day, metric)
);
`;

const add = (tx: Queryable, day: string, metric: DailyMetric, value: number) => moveDaily(tx, 'billing_daily', day, metric, value);
const set = (tx: Queryable, day: string, metric: DailyMetric, value: number) => moveDaily(tx, 'billing_daily', day, metric, value, true);

export const analyticsProjection: Projection = {
  name: 'billing-analytics',
  version: 1,
  tables: ['billing_daily'],
  schema: ANALYTICS_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    const day = eventTime(event).slice(0, 10);
    const data = event.data as Record<string, unknown>;
    if (event.type === 'PaymentVerified') {
      await add(tx, day, 'revenue_sats', Number(data.amountSats));
      await add(tx, day, 'verified_payments', 1);
    } else if (event.type === 'UserRegistered' && data.role !== 'admin') {
      await add(tx, day, 'registrations', 1);
    } else if (event.type === 'UserApproved') {
      // Identity's projection ran first in this transaction, so the row is there; the admin bootstrap is no approval.
      const user = await findUserById(tx, String(data.userId));
      if (user?.role !== 'admin') await add(tx, day, 'approvals', 1);
    } else if (SUBSCRIPTION_TYPES.has(event.type)) {
      // Runs after billingProjection (same transaction), so its counters already hold this event's
      // effect: two counter rows, not a count over every subscription at every subscription event.
      await set(tx, day, 'active_subscriptions', await sumCounts(tx, BILLING_COUNTS, ['subscription:active', 'subscription:past_due']));
    }
  },
};

/** One day of the series (the shared `analyticsDaySchema`). */
export type AnalyticsDay = z.infer<typeof analyticsDaySchema>;

const dayString = (d: Date) => d.toISOString().slice(0, 10);

/** The series for the `days` UTC days ending with `today`, every day present (zeros where quiet). */
export async function analyticsSeries(db: Queryable, today: Date, days: number): Promise<z.infer<typeof analyticsSchema>> {
  const end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const start = new Date(end.getTime() - (days - 1) * 86_400_000);
  const from = dayString(start);
  const to = dayString(end);
  const rows = await db.all<{ day: string; metric: DailyMetric; value: number }>(
    'SELECT day, metric, value FROM billing_daily WHERE day >= ? AND day <= ?',
    [from, to],
  );
  const before = await db.get<{ value: number }>(
    `SELECT value FROM billing_daily WHERE metric = 'active_subscriptions' AND day < ? ORDER BY day DESC LIMIT 1`,
    [from],
  );
  const byDay = new Map<string, Partial<Record<DailyMetric, number>>>();
  for (const r of rows) byDay.set(r.day, { ...byDay.get(r.day), [r.metric]: Number(r.value) });
  let active = Number(before?.value ?? 0);
  const series: AnalyticsDay[] = [];
  for (let t = start.getTime(); t <= end.getTime(); t += 86_400_000) {
    const date = dayString(new Date(t));
    const m = byDay.get(date) ?? {};
    active = m.active_subscriptions ?? active;
    const revenueSats = m.revenue_sats ?? 0;
    series.push({
      date,
      revenueSats,
      revenueBtc: satsToBtc(revenueSats),
      verifiedPayments: m.verified_payments ?? 0,
      registrations: m.registrations ?? 0,
      approvals: m.approvals ?? 0,
      activeSubscriptions: active,
    });
  }
  const sum = (k: 'revenueSats' | 'verifiedPayments' | 'registrations' | 'approvals') => series.reduce((s, d) => s + d[k], 0);
  const totalSats = sum('revenueSats');
  return {
    from,
    to,
    days: series,
    totals: {
      revenueSats: totalSats,
      revenueBtc: satsToBtc(totalSats),
      verifiedPayments: sum('verifiedPayments'),
      registrations: sum('registrations'),
      approvals: sum('approvals'),
      activeSubscriptions: active,
    },
  };
}
