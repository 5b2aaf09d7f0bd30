import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { type SubscriptionCommand, type SubscriptionEvent, subscriptionDecider } from './subscription.decider.js';

const T0 = '2026-01-31T12:00:00.000Z';
const base = {
  subscriptionId: 's1',
  userId: 'u1',
  planType: 'monthly' as const,
  periodStart: T0,
  periodEnd: '2026-02-28T12:00:00.000Z',
  paymentId: 'p1',
  amountSats: 50000,
};
const activated: SubscriptionEvent = { type: 'SubscriptionActivated', data: { ...base, activatedAt: T0 } };
const cancelRequested: SubscriptionEvent = { type: 'SubscriptionCancelRequested', data: { ...base, requestedAt: T0 } };
const reactivated: SubscriptionEvent = { type: 'SubscriptionReactivated', data: { ...base, reactivatedAt: T0 } };
const pastDue: SubscriptionEvent = {
  type: 'SubscriptionPastDue',
  data: { ...base, graceUntil: '2026-03-03T12:00:00.000Z', pastDueAt: '2026-02-28T12:01:00.000Z' },
};
const unpaid: SubscriptionEvent = { type: 'SubscriptionUnpaid', data: { ...base, unpaidAt: '2026-03-03T12:00:00.000Z' } };
const canceled: SubscriptionEvent = {
  type: 'SubscriptionCanceled',
  data: { ...base, reason: 'canceled_at_period_end', canceledAt: '2026-02-28T12:00:00.000Z' },
};

const { given, stateOf } = deciderSpec(subscriptionDecider);

const pay = (over: Partial<Extract<SubscriptionCommand, { type: 'ApplyVerifiedPayment' }>> = {}): SubscriptionCommand => ({
  type: 'ApplyVerifiedPayment',
  userId: 'u1',
  newSubscriptionId: 's1',
  paymentId: 'p1',
  planType: 'monthly',
  amountSats: 50000,
  now: T0,
  ...over,
});
const tick = (now: string, graceDays = 3): SubscriptionCommand => ({ type: 'AdvanceLifecycle', now, graceDays });

describe('subscription decider: payments', () => {
  it('activates on the first verified payment for one calendar month (clamped to month end)', () => {
    expect(given([]).when(pay())).toEqual({ ok: true, events: [activated] });
  });

  it('activates an annual plan for one calendar year', () => {
    const r = given([]).when(pay({ planType: 'annual', amountSats: 500000, now: '2026-03-10T08:00:00.000Z' }));
    expect(r.ok && r.events[0]?.data).toMatchObject({ periodStart: '2026-03-10T08:00:00.000Z', periodEnd: '2027-03-10T08:00:00.000Z' });
  });

  it('applies one payment once (idempotent)', () => {
    expect(given([activated]).when(pay())).toEqual({ ok: true, events: [] });
  });

  it('renews an active subscription from its current end, never shortening it, and clears a pending cancel', () => {
    const r = given([activated, cancelRequested]).when(
      pay({ paymentId: 'p2', newSubscriptionId: 'ignored', now: '2026-02-10T00:00:00.000Z' }),
    );
    expect(r).toEqual({
      ok: true,
      events: [
        {
          type: 'SubscriptionRenewed',
          data: {
            ...base,
            paymentId: 'p2',
            periodEnd: '2026-03-28T12:00:00.000Z',
            previousPeriodEnd: base.periodEnd,
            renewedAt: '2026-02-10T00:00:00.000Z',
          },
        },
      ],
    });
    const s = stateOf([activated, cancelRequested, ...(r.ok ? r.events : [])]);
    expect(s).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, appliedPayments: ['p1', 'p2'] });
  });

  it('renews a past-due subscription from its old end and makes it active again', () => {
    const r = given([activated, pastDue]).when(
      pay({ paymentId: 'p2', planType: 'annual', amountSats: 500000, now: '2026-03-01T00:00:00.000Z' }),
    );
    expect(r.ok && r.events[0]).toMatchObject({
      type: 'SubscriptionRenewed',
      data: { planType: 'annual', periodEnd: '2027-02-28T12:00:00.000Z' },
    });
    expect(stateOf([activated, pastDue, ...(r.ok ? r.events : [])]).status).toBe('active');
  });

  it('starts a new subscription after canceled or unpaid', () => {
    for (const history of [
      [activated, cancelRequested, canceled],
      [activated, pastDue, unpaid],
    ]) {
      const r = given(history).when(pay({ paymentId: 'p9', newSubscriptionId: 's2', now: '2026-04-01T00:00:00.000Z' }));
      expect(r.ok && r.events[0]).toMatchObject({
        type: 'SubscriptionActivated',
        data: { subscriptionId: 's2', periodStart: '2026-04-01T00:00:00.000Z', periodEnd: '2026-05-01T00:00:00.000Z' },
      });
    }
  });
});

describe('subscription decider: cancel and reactivate', () => {
  it('cancels at period end once', () => {
    expect(given([activated]).when({ type: 'RequestCancel', now: T0 })).toEqual({ ok: true, events: [cancelRequested] });
    expect(given([activated, cancelRequested]).when({ type: 'RequestCancel', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.state_conflict' },
    });
  });

  it('does not cancel without a subscription, another id, or when not active', () => {
    expect(given([]).when({ type: 'RequestCancel', now: T0 })).toMatchObject({ ok: false, error: { code: 'subscription.not_found' } });
    expect(given([activated]).when({ type: 'RequestCancel', subscriptionId: 'other', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.not_found' },
    });
    for (const h of [
      [activated, pastDue],
      [activated, pastDue, unpaid],
      [activated, cancelRequested, canceled],
    ])
      expect(given(h).when({ type: 'RequestCancel', now: T0 })).toMatchObject({
        ok: false,
        error: { code: 'subscription.state_conflict' },
      });
  });

  it('reactivates only a subscription set to cancel', () => {
    expect(given([activated, cancelRequested]).when({ type: 'Reactivate', subscriptionId: 's1', now: T0 })).toEqual({
      ok: true,
      events: [reactivated],
    });
    expect(given([activated]).when({ type: 'Reactivate', subscriptionId: 's1', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.state_conflict', status: 409, message: expect.stringMatching(/not set to cancel/) },
    });
    expect(given([activated, cancelRequested, reactivated]).when({ type: 'Reactivate', subscriptionId: 's1', now: T0 })).toMatchObject({
      ok: false,
    });
    expect(given([activated, cancelRequested]).when({ type: 'Reactivate', subscriptionId: 'other', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.not_found' },
    });
    expect(given([activated, cancelRequested, canceled]).when({ type: 'Reactivate', subscriptionId: 's1', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.state_conflict' },
    });
    expect(given([]).when({ type: 'Reactivate', subscriptionId: 's1', now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'subscription.not_found' },
    });
  });
});

describe('subscription decider: time', () => {
  it('does nothing before the period end, or without a subscription', () => {
    expect(given([activated]).when(tick('2026-02-28T11:59:59.999Z'))).toEqual({ ok: true, events: [] });
    expect(given([]).when(tick('2030-01-01T00:00:00.000Z'))).toEqual({ ok: true, events: [] });
  });

  it('cancels a canceling subscription at period end', () => {
    const r = given([activated, cancelRequested]).when(tick('2026-02-28T12:00:00.000Z'));
    expect(r).toEqual({ ok: true, events: [{ ...canceled, data: { ...canceled.data, canceledAt: '2026-02-28T12:00:00.000Z' } }] });
  });

  it('makes an unrenewed subscription past due with a grace period, then unpaid', () => {
    const r = given([activated]).when(tick('2026-02-28T12:01:00.000Z'));
    expect(r).toEqual({ ok: true, events: [pastDue] });
    expect(given([activated, pastDue]).when(tick('2026-03-03T11:59:00.000Z'))).toEqual({ ok: true, events: [] });
    expect(given([activated, pastDue]).when(tick('2026-03-03T12:00:00.000Z'))).toEqual({ ok: true, events: [unpaid] });
    expect(given([activated, pastDue, unpaid]).when(tick('2027-01-01T00:00:00.000Z'))).toEqual({ ok: true, events: [] });
    expect(given([activated, cancelRequested, canceled]).when(tick('2027-01-01T00:00:00.000Z'))).toEqual({ ok: true, events: [] });
  });

  it('records both steps when the clock jumps past the grace period', () => {
    const r = given([activated]).when(tick('2026-04-01T00:00:00.000Z'));
    expect(r.ok && r.events.map((e) => e.type)).toEqual(['SubscriptionPastDue', 'SubscriptionUnpaid']);
  });

  it('a zero-day grace period goes straight to unpaid', () => {
    const r = given([activated]).when(tick('2026-02-28T12:00:00.000Z', 0));
    expect(r.ok && r.events.map((e) => e.type)).toEqual(['SubscriptionPastDue', 'SubscriptionUnpaid']);
  });
});

describe('subscription decider: erasure', () => {
  const T1 = '2026-02-10T09:00:00.000Z';
  const end: SubscriptionCommand = { type: 'EndForErasure', now: T1 };
  const ended: SubscriptionEvent = { type: 'SubscriptionCanceled', data: { ...base, reason: 'account_erased', canceledAt: T1 } };

  it('ends a subscription that grants access at once (active, canceling or past due), keeping the paid period in the snapshot', () => {
    expect(given([activated]).when(end)).toEqual({ ok: true, events: [ended] });
    expect(given([activated, cancelRequested]).when(end)).toEqual({ ok: true, events: [ended] });
    const r = given([activated, pastDue]).when(end);
    expect(r.ok && r.events.map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([
      ['SubscriptionCanceled', 'account_erased'],
    ]);
    expect(stateOf([activated, ended])).toMatchObject({ status: 'canceled', erased: true, cancelAtPeriodEnd: false });
  });

  it('adds nothing without a subscription, after it ended, or a second time', () => {
    expect(given([]).when(end)).toEqual({ ok: true, events: [] });
    expect(given([activated, pastDue, unpaid]).when(end)).toEqual({ ok: true, events: [] });
    expect(given([activated, cancelRequested, canceled]).when(end)).toEqual({ ok: true, events: [] });
    expect(given([activated, ended]).when(end)).toEqual({ ok: true, events: [] });
  });

  it('no later payment activates a subscription for the erased account', () => {
    expect(given([activated, ended]).when(pay({ paymentId: 'p9' }))).toEqual({
      ok: false,
      error: {
        code: 'subscription.state_conflict',
        status: 409,
        message: "This member's account was erased; no subscription can be activated for it",
      },
    });
  });
});
