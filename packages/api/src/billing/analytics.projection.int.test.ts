/**
 * The per-day figures of the admin charts (`billing_daily`), given identity's and billing's events
 * as their deciders decide them, then its rows (live and rebuilt from the log). Days are the UTC
 * dates of the events' time.
 */
import { describe, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { userDecider, userStream } from '../identity/user.decider.js';
import { usersProjection } from '../identity/users.projection.js';
import { analyticsProjection } from './analytics.projection.js';
import { billingProjection } from './billing.projection.js';
import { paymentDecider, paymentStreamId } from './payment.decider.js';
import type { PlanType } from './plans.js';
import { subscriptionDecider, subscriptionStreamId } from './subscription.decider.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const ADMIN = 'ad000000-0000-4000-8000-000000000003';
const DAY1 = '2026-03-02';
const DAY2 = '2026-03-03';
const DAY3 = '2026-03-04';
const MONTHLY = 50_000;
const ANNUAL = 500_000;

// It reads identity's `users` (who is an admin) and billing's counters, written first in the same transaction.
const { given } = projectionSpec(analyticsProjection, { after: [usersProjection, billingProjection] });
const DAILY = 'SELECT day, metric, value FROM billing_daily ORDER BY day, metric';

const registerData = (userId: string) => ({
  userId,
  email: `${userId}@example.test`,
  firstName: 'Alice',
  lastName: 'Liddell',
  dateOfBirth: '1990-05-04',
  passwordHash: 'h',
});

function member(userId: string, now: string) {
  const s = stream(userStream(userId));
  const registered = s.decide(userDecider, { type: 'Register', data: { ...registerData(userId), role: 'member' }, now });
  return { ...s, registered };
}

/** A payment submitted and verified at `now` (the verification is the revenue). */
function paid(paymentId: string, userId: string, planType: PlanType, now: string) {
  const s = stream(paymentStreamId(paymentId));
  const amountSats = planType === 'monthly' ? MONTHLY : ANNUAL;
  const submitted = s.decide(paymentDecider, {
    type: 'SubmitPayment',
    data: { paymentId, userId, userEmail: 'e@example.test', planType, amountSats },
    now,
  });
  const verified = s.decide(paymentDecider, { type: 'VerifyPayment', paymentId, verifiedBy: ADMIN, now });
  return { s, submitted, verified, amountSats };
}

function subscription(userId: string) {
  const s = stream(subscriptionStreamId(userId));
  return {
    apply: (paymentId: string, now: string) =>
      s.decide(subscriptionDecider, {
        type: 'ApplyVerifiedPayment',
        userId,
        newSubscriptionId: `sub-${paymentId}`,
        paymentId,
        planType: 'monthly',
        amountSats: MONTHLY,
        now,
      }),
    advance: (now: string) => s.decide(subscriptionDecider, { type: 'AdvanceLifecycle', now, graceDays: 7 }),
  };
}

describe('billing analytics projection', () => {
  it('UserRegistered (members only) and UserApproved (not the admin bootstrap): counted on their UTC day', async () => {
    const alice = member(ALICE, `${DAY1}T23:59:59.999Z`);
    const bob = member(BOB, `${DAY2}T00:00:00.000Z`);
    const approved = alice.decide(userDecider, { type: 'Approve', approvedBy: ADMIN, now: `${DAY2}T08:00:00.000Z` });
    const admin = stream(userStream(ADMIN)).decide(userDecider, {
      type: 'EnsureAdmin',
      register: registerData(ADMIN),
      passwordMatches: true,
      now: `${DAY2}T09:00:00.000Z`,
    });
    await given(alice.registered, bob.registered, approved, admin).thenRows(DAILY, [
      { day: DAY1, metric: 'registrations', value: 1 },
      { day: DAY2, metric: 'approvals', value: 1 },
      { day: DAY2, metric: 'registrations', value: 1 },
    ]);
  });

  it('PaymentVerified: revenue and verified payments summed per day; submissions and rejections count nothing', async () => {
    const alice = member(ALICE, `${DAY1}T08:00:00.000Z`);
    const bob = member(BOB, `${DAY1}T08:00:00.000Z`);
    const p1 = paid('p1', ALICE, 'monthly', `${DAY1}T10:00:00.000Z`);
    const p2 = paid('p2', BOB, 'annual', `${DAY1}T22:00:00.000Z`);
    const p3 = paid('p3', ALICE, 'annual', `${DAY2}T10:00:00.000Z`);
    const p4 = stream(paymentStreamId('p4'));
    const p4submitted = p4.decide(paymentDecider, {
      type: 'SubmitPayment',
      data: { paymentId: 'p4', userId: BOB, userEmail: 'e@example.test', planType: 'monthly', amountSats: MONTHLY },
      now: `${DAY3}T10:00:00.000Z`,
    });
    const p4rejected = p4.decide(paymentDecider, {
      type: 'RejectPayment',
      paymentId: 'p4',
      reason: 'No such transaction',
      rejectedBy: ADMIN,
      now: `${DAY3}T11:00:00.000Z`,
    });
    await given(
      alice.registered,
      bob.registered,
      p1.submitted,
      p1.verified,
      p2.submitted,
      p2.verified,
      p3.submitted,
      p3.verified,
      p4submitted,
      p4rejected,
    ).thenRows(DAILY, [
      { day: DAY1, metric: 'registrations', value: 2 },
      { day: DAY1, metric: 'revenue_sats', value: MONTHLY + ANNUAL },
      { day: DAY1, metric: 'verified_payments', value: 2 },
      { day: DAY2, metric: 'revenue_sats', value: ANNUAL },
      { day: DAY2, metric: 'verified_payments', value: 1 },
    ]);
  });

  it('subscription events: the subscriptions granting access (active or past due) at the end of each day', async () => {
    const alice = member(ALICE, `${DAY1}T08:00:00.000Z`);
    const bob = member(BOB, `${DAY1}T08:00:00.000Z`);
    const p1 = paid('p1', ALICE, 'monthly', `${DAY1}T09:00:00.000Z`);
    const p2 = paid('p2', BOB, 'monthly', `${DAY1}T09:00:00.000Z`);
    const aliceSub = subscription(ALICE);
    const bobSub = subscription(BOB);
    await given(
      alice.registered,
      bob.registered,
      p1.submitted,
      p1.verified,
      aliceSub.apply('p1', `${DAY1}T10:00:00.000Z`),
      p2.submitted,
      p2.verified,
      bobSub.apply('p2', `${DAY1}T11:00:00.000Z`),
      // A month later: Alice past due (still access), then unpaid; Bob's, past the grace at once, the day after.
      aliceSub.advance('2026-04-03T09:00:00.000Z'),
      aliceSub.advance('2026-04-10T09:00:00.000Z'),
      bobSub.advance('2026-04-11T09:00:00.000Z'),
    ).thenRows(DAILY, [
      { day: DAY1, metric: 'active_subscriptions', value: 2 },
      { day: DAY1, metric: 'registrations', value: 2 },
      { day: DAY1, metric: 'revenue_sats', value: 2 * MONTHLY },
      { day: DAY1, metric: 'verified_payments', value: 2 },
      { day: '2026-04-03', metric: 'active_subscriptions', value: 2 },
      { day: '2026-04-10', metric: 'active_subscriptions', value: 1 },
      { day: '2026-04-11', metric: 'active_subscriptions', value: 0 },
    ]);
  });
});
