/**
 * The creator's numbers per plan and UTC calendar month (GET /api/admin/analytics?months=N),
 * projected from billing's events so a rebuild gives the same figures:
 * - `billing_plan_daily`: per UTC day, `{plan}:new` (SubscriptionActivated), `{plan}:renewed`
 *   (SubscriptionRenewed), `{plan}:churned` (SubscriptionCanceled or SubscriptionUnpaid: the
 *   subscription stopped granting access) and `{plan}:revenue_sats` (PaymentVerified of that plan;
 *   custom-request payments belong to no plan), summed per month when read.
 * - `billing_membership_spans`: one row per subscription and plan it held: a subscription opens a
 *   span at activation, a renewal onto the other plan closes it and opens one on the new plan, the
 *   end (canceled, unpaid) closes it. Active members at a month's end and the median membership
 *   length are read from them. A cancellation requested and then reactivated changes nothing here:
 *   only the end counts.
 * docs/operations.md "Analytics" defines every figure.
 */

import type { analyticsByPlanSchema, planMonthSchema } from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import type { Queryable } from '../db/types.js';
import { moveDaily } from '../eventstore/counts.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { eventTime } from './billing.projection.js';
import type { PlanType } from './plans.js';

export const PLANS: readonly PlanType[] = ['monthly', 'annual'];
const isPlan = (v: unknown): v is PlanType => v === 'monthly' || v === 'annual';

const PLAN_ANALYTICS_SCHEMA = `
CREATE TABLE IF NOT EXISTS billing_plan_daily (
  day TEXT NOT NULL,
  metric TEXT NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (day, metric)
);
CREATE TABLE IF NOT EXISTS billing_membership_spans (
  subscription_id TEXT NOT NULL,
  span_from TEXT NOT NULL,
  span_to TEXT,
  plan_type TEXT NOT NULL,
  started_at TEXT NOT NULL,
  PRIMARY KEY (subscription_id, span_from)
);
CREATE INDEX IF NOT EXISTS billing_membership_spans_from ON billing_membership_spans (span_from);
`;

type PlanMetric = 'new' | 'renewed' | 'churned' | 'revenue_sats';
const add = (tx: Queryable, at: string, plan: PlanType, metric: PlanMetric, value: number) =>
  moveDaily(tx, 'billing_plan_daily', at.slice(0, 10), `${plan}:${metric}`, value);

interface Span {
  subscription_id: string;
  span_from: string;
  span_to: string | null;
  plan_type: PlanType;
  started_at: string;
}

const openSpan = (tx: Queryable, subscriptionId: string) =>
  tx.get<Span>('SELECT * FROM billing_membership_spans WHERE subscription_id = ? AND span_to IS NULL', [subscriptionId]);

const closeSpan = (tx: Queryable, span: Span, at: string) =>
  tx.run('UPDATE billing_membership_spans SET span_to = ? WHERE subscription_id = ? AND span_from = ?', [
    at,
    span.subscription_id,
    span.span_from,
  ]);

const insertSpan = (tx: Queryable, subscriptionId: string, from: string, plan: PlanType, startedAt: string) =>
  tx.run(
    `INSERT INTO billing_membership_spans (subscription_id, span_from, span_to, plan_type, started_at) VALUES (?, ?, NULL, ?, ?)
     ON CONFLICT (subscription_id, span_from) DO UPDATE SET plan_type = excluded.plan_type, span_to = NULL`,
    [subscriptionId, from, plan, startedAt],
  );

export const planAnalyticsProjection: Projection = {
  name: 'billing-plan-analytics',
  version: 1,
  tables: ['billing_plan_daily', 'billing_membership_spans'],
  schema: PLAN_ANALYTICS_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    const at = eventTime(event);
    const data = event.data as { subscriptionId?: string; planType?: unknown; amountSats?: number };
    const plan = data.planType;
    if (event.type === 'PaymentVerified') {
      if (isPlan(plan)) await add(tx, at, plan, 'revenue_sats', Number(data.amountSats));
      return;
    }
    if (!isPlan(plan) || !data.subscriptionId) return;
    const id = data.subscriptionId;
    if (event.type === 'SubscriptionActivated') {
      await add(tx, at, plan, 'new', 1);
      await insertSpan(tx, id, at, plan, at);
    } else if (event.type === 'SubscriptionRenewed') {
      await add(tx, at, plan, 'renewed', 1);
      const span = await openSpan(tx, id);
      if (span && span.plan_type !== plan) {
        await closeSpan(tx, span, at);
        await insertSpan(tx, id, at, plan, span.started_at);
      }
    } else if (event.type === 'SubscriptionCanceled' || event.type === 'SubscriptionUnpaid') {
      const span = await openSpan(tx, id);
      if (!span) return; // already ended: one end per subscription
      await closeSpan(tx, span, at);
      await add(tx, at, span.plan_type, 'churned', 1);
    }
  },
};

export type PlanMonth = z.infer<typeof planMonthSchema>;

const DAY_MS = 86_400_000;
const monthKey = (d: Date) => d.toISOString().slice(0, 7);
const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));

/** The median of some numbers (the mean of the two middle ones for an even count), null for none. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2;
}

/**
 * Membership length in whole days for the month `[start, end)` (pure, over the spans of one
 * subscription): from its activation to its end, or to the month's end (or `now`, whichever is
 * earlier) while it lasts. Its plan is the plan of its last span starting before the month's end.
 */
export function membershipInMonth(spans: Span[], start: Date, end: Date, now: Date): { plan: PlanType; days: number } | null {
  const before = spans.filter((s) => Date.parse(s.span_from) < end.getTime()).sort((a, b) => a.span_from.localeCompare(b.span_from));
  const last = before.at(-1);
  if (!last) return null;
  const endedAt = last.span_to ? Date.parse(last.span_to) : null;
  if (endedAt !== null && endedAt < start.getTime()) return null;
  const until = Math.min(endedAt ?? Number.POSITIVE_INFINITY, end.getTime(), now.getTime());
  return { plan: last.plan_type, days: Math.floor((until - Date.parse(last.started_at)) / DAY_MS) };
}

/** The `months` UTC calendar months ending with `now`'s, oldest first, both plans each month. */
export async function analyticsByPlan(db: Queryable, now: Date, months: number): Promise<z.infer<typeof analyticsByPlanSchema>> {
  const first = monthStart(now.getUTCFullYear(), now.getUTCMonth() - (months - 1));
  const afterLast = monthStart(now.getUTCFullYear(), now.getUTCMonth() + 1);
  const daily = await db.all<{ month: string; metric: string; value: number | string }>(
    `SELECT substr(day, 1, 7) AS month, metric, SUM(value) AS value FROM billing_plan_daily
     WHERE day >= ? AND day < ? GROUP BY substr(day, 1, 7), metric`,
    [first.toISOString().slice(0, 10), afterLast.toISOString().slice(0, 10)],
  );
  const sums = new Map(daily.map((r) => [`${r.month}|${r.metric}`, Number(r.value)]));
  const spans = await db.all<Span>(
    'SELECT * FROM billing_membership_spans WHERE subscription_id IN (SELECT subscription_id FROM billing_membership_spans WHERE span_from < ? AND (span_to IS NULL OR span_to >= ?))',
    [afterLast.toISOString(), first.toISOString()],
  );
  const bySubscription = new Map<string, Span[]>();
  for (const s of spans) bySubscription.set(s.subscription_id, [...(bySubscription.get(s.subscription_id) ?? []), s]);
  const byPlan: PlanMonth[] = [];
  for (let i = 0; i < months; i++) {
    const start = monthStart(first.getUTCFullYear(), first.getUTCMonth() + i);
    const end = monthStart(first.getUTCFullYear(), first.getUTCMonth() + i + 1);
    const month = monthKey(start);
    const lengths = new Map<PlanType, number[]>(PLANS.map((p) => [p, []]));
    const active = new Map<PlanType, number>(PLANS.map((p) => [p, 0]));
    for (const subscription of bySubscription.values()) {
      const m = membershipInMonth(subscription, start, end, now);
      if (m) lengths.get(m.plan)?.push(m.days);
      // Active at the month's end: a span that began before it and had not ended by then.
      for (const s of subscription)
        if (Date.parse(s.span_from) < end.getTime() && (s.span_to === null || Date.parse(s.span_to) >= end.getTime()))
          active.set(s.plan_type, (active.get(s.plan_type) ?? 0) + 1);
    }
    for (const plan of PLANS) {
      const sum = (metric: PlanMetric) => sums.get(`${month}|${plan}:${metric}`) ?? 0;
      const revenueSats = sum('revenue_sats');
      byPlan.push({
        month,
        plan,
        activeMembers: active.get(plan) ?? 0,
        newMembers: sum('new'),
        churned: sum('churned'),
        renewed: sum('renewed'),
        medianMembershipDays: median(lengths.get(plan) ?? []),
        revenueSats,
        revenueBtc: satsToBtc(revenueSats),
      });
    }
  }
  return { from: monthKey(first), to: monthKey(now), byPlan };
}
