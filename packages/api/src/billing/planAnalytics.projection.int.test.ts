/**
 * The per-plan figures' rows (`billing_plan_daily`, `billing_membership_spans`), given billing's
 * events as the deciders decide them: a renewal onto the other plan moves the membership to it, a
 * cancellation withdrawn is no churn, the end after the grace period is, and a custom-request
 * payment belongs to no plan. Live and rebuilt from the log. Then the pure month arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { paymentDecider, paymentStreamId } from './payment.decider.js';
import { median, membershipInMonth, planAnalyticsProjection } from './planAnalytics.projection.js';
import type { PlanType } from './plans.js';
import { subscriptionDecider, subscriptionStreamId } from './subscription.decider.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const ADMIN = 'ad000000-0000-4000-8000-000000000003';
const PRICE = { monthly: 50_000, annual: 500_000 };
const { given } = projectionSpec(planAnalyticsProjection);
const DAILY = 'SELECT day, metric, value FROM billing_plan_daily ORDER BY day, metric';
const SPANS = 'SELECT subscription_id, span_from, span_to, plan_type, started_at FROM billing_membership_spans ORDER BY span_from';

function subscription(userId: string) {
  const s = stream(subscriptionStreamId(userId));
  return {
    apply: (paymentId: string, planType: PlanType, now: string) =>
      s.decide(subscriptionDecider, {
        type: 'ApplyVerifiedPayment',
        userId,
        newSubscriptionId: `sub-${paymentId}`,
        paymentId,
        planType,
        amountSats: PRICE[planType],
        now,
      }),
    cancel: (now: string) => s.decide(subscriptionDecider, { type: 'RequestCancel', now }),
    reactivate: (subscriptionId: string, now: string) => s.decide(subscriptionDecider, { type: 'Reactivate', subscriptionId, now }),
    advance: (now: string) => s.decide(subscriptionDecider, { type: 'AdvanceLifecycle', now, graceDays: 7 }),
  };
}

describe('per-plan analytics projection', () => {
  it('a renewal onto the annual plan closes the monthly span and opens an annual one for the same membership', async () => {
    const sub = subscription(ALICE);
    await given(sub.apply('p1', 'monthly', '2026-01-10T10:00:00.000Z'), sub.apply('p2', 'annual', '2026-02-03T10:00:00.000Z')).thenTables({
      [DAILY]: [
        { day: '2026-01-10', metric: 'monthly:new', value: 1 },
        { day: '2026-02-03', metric: 'annual:renewed', value: 1 },
      ],
      [SPANS]: [
        {
          subscription_id: 'sub-p1',
          span_from: '2026-01-10T10:00:00.000Z',
          span_to: '2026-02-03T10:00:00.000Z',
          plan_type: 'monthly',
          started_at: '2026-01-10T10:00:00.000Z',
        },
        {
          subscription_id: 'sub-p1',
          span_from: '2026-02-03T10:00:00.000Z',
          span_to: null,
          plan_type: 'annual',
          started_at: '2026-01-10T10:00:00.000Z',
        },
      ],
    });
  });

  it('a cancellation withdrawn is no churn; the end after the grace period is, once, on its day', async () => {
    const sub = subscription(ALICE);
    await given(
      sub.apply('p1', 'monthly', '2026-01-10T10:00:00.000Z'),
      sub.cancel('2026-01-12T10:00:00.000Z'),
      sub.reactivate('sub-p1', '2026-01-13T10:00:00.000Z'),
      sub.advance('2026-02-11T10:00:00.000Z'),
      sub.advance('2026-02-20T10:00:00.000Z'),
    ).thenTables({
      [DAILY]: [
        { day: '2026-01-10', metric: 'monthly:new', value: 1 },
        { day: '2026-02-20', metric: 'monthly:churned', value: 1 },
      ],
      [SPANS]: [
        {
          subscription_id: 'sub-p1',
          span_from: '2026-01-10T10:00:00.000Z',
          span_to: '2026-02-20T10:00:00.000Z',
          plan_type: 'monthly',
          started_at: '2026-01-10T10:00:00.000Z',
        },
      ],
    });
  });

  it('revenue: verified plan payments by their verification day; a custom-request payment belongs to no plan', async () => {
    const pay = (paymentId: string, planType: PlanType | 'custom', amountSats: number, now: string) => {
      const s = stream(paymentStreamId(paymentId));
      s.decide(paymentDecider, {
        type: 'SubmitPayment',
        data: { paymentId, userId: ALICE, userEmail: 'e@example.test', planType, amountSats },
        now,
      });
      return s.decide(paymentDecider, { type: 'VerifyPayment', paymentId, verifiedBy: ADMIN, now });
    };
    await given(
      pay('p1', 'monthly', 50_000, '2026-01-31T23:59:59.999Z'),
      pay('p2', 'annual', 500_000, '2026-02-01T00:00:00.000Z'),
      pay('p3', 'custom', 70_000, '2026-02-01T00:00:00.000Z'),
    ).thenRows(DAILY, [
      { day: '2026-01-31', metric: 'monthly:revenue_sats', value: 50_000 },
      { day: '2026-02-01', metric: 'annual:revenue_sats', value: 500_000 },
    ]);
  });
});

describe('per-plan month arithmetic (pure)', () => {
  const span = (from: string, to: string | null, plan: PlanType, startedAt = from) => ({
    subscription_id: 's',
    span_from: from,
    span_to: to,
    plan_type: plan,
    started_at: startedAt,
  });
  const month = (m: string) =>
    [new Date(`${m}-01T00:00:00.000Z`), new Date(new Date(`${m}-01T00:00:00.000Z`).setUTCMonth(Number(m.slice(5))))] as const;

  it('median: the middle length, the mean of the two middle ones, null for none', () => {
    expect(median([])).toBeNull();
    expect(median([30, 1, 7])).toBe(7);
    expect(median([1, 2, 3, 10])).toBe(2.5);
  });

  it('a membership counts in a month it overlaps, under its plan then, up to its end, the month end or now', () => {
    const now = new Date('2026-03-15T00:00:00.000Z');
    const spans = [
      span('2026-01-10T00:00:00.000Z', '2026-02-03T00:00:00.000Z', 'monthly'),
      span('2026-02-03T00:00:00.000Z', null, 'annual', '2026-01-10T00:00:00.000Z'),
    ];
    const [janStart, janEnd] = month('2026-01');
    expect(janEnd.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(membershipInMonth(spans, janStart, janEnd, now)).toEqual({ plan: 'monthly', days: 22 });
    const [febStart, febEnd] = month('2026-02');
    expect(membershipInMonth(spans, febStart, febEnd, now)).toEqual({ plan: 'annual', days: 50 });
    const [marStart, marEnd] = month('2026-03');
    expect(membershipInMonth(spans, marStart, marEnd, now)).toEqual({ plan: 'annual', days: 64 });
    const [decStart, decEnd] = month('2025-12');
    expect(membershipInMonth(spans, decStart, decEnd, now)).toBeNull();
    const ended = [span('2026-01-10T00:00:00.000Z', '2026-01-20T00:00:00.000Z', 'monthly')];
    expect(membershipInMonth(ended, janStart, janEnd, now)).toEqual({ plan: 'monthly', days: 10 });
    expect(membershipInMonth(ended, febStart, febEnd, now)).toBeNull();
  });
});
