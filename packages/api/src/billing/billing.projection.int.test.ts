/**
 * Billing's read models (`billing_payments`, `billing_subscriptions`, `billing_counts` and the
 * membership columns on identity's `users`), given the payment, subscription and erasure events as
 * their deciders decide them, then their rows (live and rebuilt from the log).
 */
import { describe, expect, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { userDecider, userStream } from '../identity/user.decider.js';
import { usersProjection } from '../identity/users.projection.js';
import { billingProjection, uniqueRule } from './billing.projection.js';
import type { ChainObservation } from './chain/chainStatus.js';
import { paymentDecider, paymentStreamId } from './payment.decider.js';
import type { PlanType } from './plans.js';
import { subscriptionDecider, subscriptionStreamId } from './subscription.decider.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-03T10:30:00.000Z';
const T3 = '2026-03-04T11:45:00.000Z';
const HASH1 = 'a'.repeat(64);
const HASH2 = 'b'.repeat(64);
const MONTHLY = 50_000;
const ANNUAL = 500_000;

// Billing writes the membership columns on identity's `users` rows: the users projection runs first.
const { given } = projectionSpec(billingProjection, { after: [usersProjection] });

function member(userId: string) {
  const s = stream(userStream(userId));
  const registered = s.decide(userDecider, {
    type: 'Register',
    data: {
      userId,
      email: `${userId}@example.test`,
      firstName: 'Alice',
      lastName: 'Liddell',
      dateOfBirth: '1990-05-04',
      passwordHash: 'h',
      role: 'member',
    },
    now: T1,
  });
  return { ...s, registered };
}

function payment(paymentId: string, userId: string, planType: PlanType = 'monthly') {
  const s = stream(paymentStreamId(paymentId));
  const amountSats = planType === 'monthly' ? MONTHLY : ANNUAL;
  return {
    request: (now: string, renewal?: { subscriptionId: string; periodEnd: string }) =>
      s.decide(paymentDecider, {
        type: 'RequestPayment',
        data: {
          paymentId,
          userId,
          planType,
          amountSats,
          address: `bc1q${paymentId}`,
          addressIndex: 7,
          bip21Uri: `bitcoin:bc1q${paymentId}?amount=0.0005`,
          ...(renewal ? { renewal } : {}),
          expiresAt: T3,
        },
        now,
      }),
    remind: (now: string, kind: 'day_before' | 'past_due') => s.decide(paymentDecider, { type: 'RemindRenewal', paymentId, kind, now }),
    submit: (now: string, txHash?: string) =>
      s.decide(paymentDecider, {
        type: 'SubmitPayment',
        data: { paymentId, userId, userEmail: `${userId}@example.test`, planType, amountSats, ...(txHash ? { txHash } : {}) },
        now,
      }),
    verify: (now: string) => s.decide(paymentDecider, { type: 'VerifyPayment', paymentId, verifiedBy: 'admin-1', now }),
    chain: (now: string, observation: ChainObservation) =>
      s.decide(paymentDecider, {
        type: 'RecordChainCheck',
        paymentId,
        observation,
        now,
        submitAs: { userEmail: `${userId}@example.test` },
      }),
    reject: (now: string) =>
      s.decide(paymentDecider, { type: 'RejectPayment', paymentId, reason: 'No such transaction', rejectedBy: 'admin-1', now }),
  };
}

function subscription(userId: string) {
  const s = stream(subscriptionStreamId(userId));
  return {
    ...s,
    apply: (subscriptionId: string, paymentId: string, now: string, planType: PlanType = 'monthly') =>
      s.decide(subscriptionDecider, {
        type: 'ApplyVerifiedPayment',
        userId,
        newSubscriptionId: subscriptionId,
        paymentId,
        planType,
        amountSats: planType === 'monthly' ? MONTHLY : ANNUAL,
        now,
      }),
    advance: (now: string) => s.decide(subscriptionDecider, { type: 'AdvanceLifecycle', now, graceDays: 7 }),
  };
}

const PAYMENTS = 'SELECT * FROM billing_payments ORDER BY id';
const COUNTS = 'SELECT key, n, total FROM billing_counts WHERE n <> 0 ORDER BY key';
const SUBSCRIPTIONS = 'SELECT * FROM billing_subscriptions ORDER BY user_id';
const MEMBERSHIP = 'SELECT id, membership_status, subscription_status FROM users ORDER BY id';

const paymentRow = (over: Record<string, unknown>) => ({
  id: 'p1',
  user_id: ALICE,
  user_email: null,
  plan_type: 'monthly',
  amount_sats: MONTHLY,
  status: 'requested',
  address: null,
  address_index: null,
  bip21_uri: null,
  tx_hash: null,
  requested_at: null,
  expires_at: null,
  submitted_at: null,
  verified_at: null,
  verified_by: null,
  rejected_at: null,
  rejected_by: null,
  reject_reason: null,
  subscription_id: null,
  applied_at: null,
  custom_request_id: null,
  chain_status: null,
  chain_txid: null,
  chain_output_index: null,
  chain_received_sats: null,
  chain_confirmations: null,
  chain_block_height: null,
  chain_block_hash: null,
  chain_checked_at: null,
  chain_flagged_at: null,
  renewal_subscription_id: null,
  renewal_period_end: null,
  renewal_reminders: null,
  ...over,
});

const REQUESTED = { address: 'bc1qp1', address_index: 7, bip21_uri: 'bitcoin:bc1qp1?amount=0.0005', requested_at: T1, expires_at: T3 };

describe('billing projection: payments', () => {
  it('PaymentRequested: a requested row with the invoice, counted with its satoshis', async () => {
    const alice = member(ALICE);
    await given(alice.registered, payment('p1', ALICE).request(T1)).thenTables({
      [PAYMENTS]: [paymentRow(REQUESTED)],
      [COUNTS]: [{ key: 'payment:requested', n: 1, total: MONTHLY }],
    });
  });

  it('PaymentRequested for a renewal, then both reminders: the renewed subscription and period on the row, the reminders sent', async () => {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    const renewal = { subscriptionId: 's1', periodEnd: T3 };
    await given(alice.registered, p1.request(T1, renewal), p1.remind(T2, 'day_before'), p1.remind(T3, 'past_due')).thenTables({
      [PAYMENTS]: [
        paymentRow({ ...REQUESTED, renewal_subscription_id: 's1', renewal_period_end: T3, renewal_reminders: 'day_before;past_due;' }),
      ],
      [COUNTS]: [{ key: 'payment:requested', n: 1, total: MONTHLY }],
    });
  });

  it('PaymentSubmitted after a request: the same row, submitted, with the address, e-mail and hash', async () => {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    await given(alice.registered, p1.request(T1), p1.submit(T2, HASH1)).thenTables({
      [PAYMENTS]: [
        paymentRow({ ...REQUESTED, status: 'submitted', user_email: `${ALICE}@example.test`, tx_hash: HASH1, submitted_at: T2 }),
      ],
      [COUNTS]: [{ key: 'payment:submitted', n: 1, total: MONTHLY }],
    });
  });

  it('PaymentSubmitted without a request (the spec’s flow): a new row without invoice or hash', async () => {
    const alice = member(ALICE);
    await given(alice.registered, payment('p1', ALICE, 'annual').submit(T2)).thenTables({
      [PAYMENTS]: [
        paymentRow({
          status: 'submitted',
          user_email: `${ALICE}@example.test`,
          plan_type: 'annual',
          amount_sats: ANNUAL,
          submitted_at: T2,
        }),
      ],
      [COUNTS]: [{ key: 'payment:submitted', n: 1, total: ANNUAL }],
    });
  });

  it("PaymentChainChecked: a paid request nobody submitted is submitted with the chain's hash; PaymentLeftChain flags it once verified", async () => {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    const seen = { txid: HASH1, outputIndex: 0, receivedSats: MONTHLY, blockHeight: 7, blockHash: 'b7', rbf: false };
    const chainRow = {
      chain_txid: HASH1,
      chain_output_index: 0,
      chain_received_sats: MONTHLY,
      chain_block_height: 7,
      chain_block_hash: 'b7',
    };
    await given(alice.registered, p1.request(T1), p1.chain(T2, { ...seen, status: 'confirmed', confirmations: 1 })).thenTables({
      [PAYMENTS]: [
        paymentRow({
          ...REQUESTED,
          ...chainRow,
          status: 'submitted',
          user_email: `${ALICE}@example.test`,
          tx_hash: HASH1,
          submitted_at: T2,
          chain_status: 'confirmed',
          chain_confirmations: 1,
          chain_checked_at: T2,
        }),
      ],
      [COUNTS]: [{ key: 'payment:submitted', n: 1, total: MONTHLY }],
    });
    const gone = {
      ...seen,
      status: 'conflicted' as const,
      confirmations: 0,
      blockHeight: null,
      blockHash: null,
      outputIndex: null,
      receivedSats: 0,
    };
    const again = payment('p1', ALICE);
    await given(
      member(ALICE).registered,
      again.request(T1),
      again.chain(T2, { ...seen, status: 'confirmed', confirmations: 1 }),
      again.verify(T2),
      again.chain(T3, gone),
    ).thenTables({
      [PAYMENTS]: [
        paymentRow({
          ...REQUESTED,
          status: 'verified',
          user_email: `${ALICE}@example.test`,
          tx_hash: HASH1,
          submitted_at: T2,
          verified_at: T2,
          verified_by: 'admin-1',
          chain_status: 'conflicted',
          chain_txid: HASH1,
          chain_received_sats: 0,
          chain_confirmations: 0,
          chain_checked_at: T3,
          chain_flagged_at: T3,
        }),
      ],
      [COUNTS]: [{ key: 'payment:verified', n: 1, total: MONTHLY }],
    });
  });

  it('PaymentVerified: verified with who and when; the counters move to verified', async () => {
    const alice = member(ALICE);
    const bob = member(BOB);
    const p1 = payment('p1', ALICE);
    const p2 = payment('p2', BOB, 'annual');
    await given(alice.registered, bob.registered, p1.submit(T1, HASH1), p2.submit(T1), p1.verify(T2)).thenTables({
      'SELECT id, status, verified_at, verified_by, tx_hash FROM billing_payments ORDER BY id': [
        { id: 'p1', status: 'verified', verified_at: T2, verified_by: 'admin-1', tx_hash: HASH1 },
        { id: 'p2', status: 'submitted', verified_at: null, verified_by: null, tx_hash: null },
      ],
      [COUNTS]: [
        { key: 'payment:submitted', n: 1, total: ANNUAL },
        { key: 'payment:verified', n: 1, total: MONTHLY },
      ],
    });
  });

  it('PaymentRejected: rejected with who, when and why', async () => {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    await given(alice.registered, p1.submit(T1, HASH1), p1.reject(T2)).thenTables({
      'SELECT status, rejected_at, rejected_by, reject_reason, verified_at FROM billing_payments': [
        { status: 'rejected', rejected_at: T2, rejected_by: 'admin-1', reject_reason: 'No such transaction', verified_at: null },
      ],
      [COUNTS]: [{ key: 'payment:rejected', n: 1, total: MONTHLY }],
    });
  });

  it('a transaction hash already used by another payment: refused (tx_hash), nothing written', async () => {
    const alice = member(ALICE);
    const bob = member(BOB);
    await given(alice.registered, bob.registered, payment('p1', ALICE).submit(T1, HASH1))
      .when(payment('p2', BOB).submit(T2, HASH1))
      .thenFails((err) => expect(uniqueRule(err)).toBe('tx_hash'));
  });

  it('a second pending payment for the same plan: refused (one_pending), nothing written', async () => {
    const alice = member(ALICE);
    await given(alice.registered, payment('p1', ALICE).submit(T1, HASH1))
      .when(payment('p2', ALICE).submit(T2, HASH2))
      .thenFails((err) => expect(uniqueRule(err)).toBe('one_pending'));
  });

  it('one pending payment per plan: another plan, or the same plan once the first is decided, is fine', async () => {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    await given(
      alice.registered,
      p1.submit(T1, HASH1),
      payment('p2', ALICE, 'annual').submit(T1),
      p1.reject(T2),
      payment('p3', ALICE).submit(T3, HASH2),
    ).thenRows('SELECT id, plan_type, status FROM billing_payments ORDER BY id', [
      { id: 'p1', plan_type: 'monthly', status: 'rejected' },
      { id: 'p2', plan_type: 'annual', status: 'submitted' },
      { id: 'p3', plan_type: 'monthly', status: 'submitted' },
    ]);
  });

  it('MemberErased: the address the payments were submitted with becomes the label; amounts and requests stay', async () => {
    const alice = member(ALICE);
    const bob = member(BOB);
    const p1 = payment('p1', ALICE);
    const erased = alice.decide(userDecider, { type: 'Erase', erasedBy: ALICE, requestedBy: 'member', reason: null, now: T3 });
    await given(
      alice.registered,
      bob.registered,
      p1.submit(T1, HASH1),
      p1.verify(T2),
      payment('p2', ALICE, 'annual').request(T2),
      payment('p3', BOB).submit(T2),
      erased,
    ).thenRows('SELECT id, user_id, user_email, status, amount_sats FROM billing_payments ORDER BY id', [
      { id: 'p1', user_id: ALICE, user_email: 'erased member a11ce000', status: 'verified', amount_sats: MONTHLY },
      { id: 'p2', user_id: ALICE, user_email: null, status: 'requested', amount_sats: ANNUAL },
      { id: 'p3', user_id: BOB, user_email: `${BOB}@example.test`, status: 'submitted', amount_sats: MONTHLY },
    ]);
  });
});

describe('billing projection: subscriptions', () => {
  /** Alice registered, her monthly payment p1 verified at T1 and applied: one active subscription s1. */
  function activeAlice() {
    const alice = member(ALICE);
    const p1 = payment('p1', ALICE);
    const sub = subscription(ALICE);
    const history = [alice.registered, p1.submit(T1, HASH1), p1.verify(T1), sub.apply('s1', 'p1', T1)];
    return { alice, sub, history };
  }

  it('SubscriptionActivated: the current subscription, the payment applied to it, the member active', async () => {
    const { history } = activeAlice();
    const bob = member(BOB);
    await given(...history, bob.registered).thenTables({
      [SUBSCRIPTIONS]: [
        {
          user_id: ALICE,
          subscription_id: 's1',
          plan_type: 'monthly',
          status: 'active',
          cancel_at_period_end: 0,
          current_period_start: T1,
          current_period_end: '2026-04-02T09:00:00.000Z',
          grace_until: null,
          last_payment_id: 'p1',
          amount_sats: MONTHLY,
          updated_at: T1,
        },
      ],
      'SELECT id, subscription_id, applied_at FROM billing_payments': [{ id: 'p1', subscription_id: 's1', applied_at: T1 }],
      [MEMBERSHIP]: [
        { id: ALICE, membership_status: 'active', subscription_status: 'active' },
        { id: BOB, membership_status: 'inactive', subscription_status: null },
      ],
      [COUNTS]: [
        { key: 'payment:verified', n: 1, total: MONTHLY },
        { key: 'subscription:active', n: 1, total: 0 },
      ],
    });
  });

  it('SubscriptionRenewed: the period extended from its end, the new payment applied and last', async () => {
    const { sub, history } = activeAlice();
    const p2 = payment('p2', ALICE, 'annual');
    await given(...history, p2.submit(T2, HASH2), p2.verify(T2), sub.apply('s-unused', 'p2', T2, 'annual')).thenTables({
      'SELECT subscription_id, plan_type, status, current_period_start, current_period_end, last_payment_id, amount_sats, updated_at FROM billing_subscriptions':
        [
          {
            subscription_id: 's1',
            plan_type: 'annual',
            status: 'active',
            current_period_start: T1,
            current_period_end: '2027-04-02T09:00:00.000Z',
            last_payment_id: 'p2',
            amount_sats: ANNUAL,
            updated_at: T2,
          },
        ],
      'SELECT id, subscription_id, applied_at FROM billing_payments ORDER BY id': [
        { id: 'p1', subscription_id: 's1', applied_at: T1 },
        { id: 'p2', subscription_id: 's1', applied_at: T2 },
      ],
      [COUNTS]: [
        { key: 'payment:verified', n: 2, total: MONTHLY + ANNUAL },
        { key: 'subscription:active', n: 1, total: 0 },
      ],
    });
  });

  it('SubscriptionCancelRequested then SubscriptionReactivated: the flag set, then cleared; still active', async () => {
    const { sub, history } = activeAlice();
    const row = 'SELECT status, cancel_at_period_end, updated_at FROM billing_subscriptions';
    const cancel = sub.decide(subscriptionDecider, { type: 'RequestCancel', now: T2 });
    await given(...history, cancel).thenTables({
      [row]: [{ status: 'active', cancel_at_period_end: 1, updated_at: T2 }],
      [MEMBERSHIP]: [{ id: ALICE, membership_status: 'active', subscription_status: 'active' }],
    });
    const reactivated = sub.decide(subscriptionDecider, { type: 'Reactivate', subscriptionId: 's1', now: T3 });
    await given(...history, cancel, reactivated).thenRows(row, [{ status: 'active', cancel_at_period_end: 0, updated_at: T3 }]);
  });

  it('SubscriptionCanceled at the period end: canceled, the flag cleared, the member inactive', async () => {
    const { sub, history } = activeAlice();
    const cancel = sub.decide(subscriptionDecider, { type: 'RequestCancel', now: T2 });
    const end = sub.advance('2026-04-02T09:00:00.000Z');
    await given(...history, cancel, end).thenTables({
      'SELECT status, cancel_at_period_end, grace_until, updated_at FROM billing_subscriptions': [
        { status: 'canceled', cancel_at_period_end: 0, grace_until: null, updated_at: '2026-04-02T09:00:00.000Z' },
      ],
      [MEMBERSHIP]: [{ id: ALICE, membership_status: 'inactive', subscription_status: 'canceled' }],
      [COUNTS]: [
        { key: 'payment:verified', n: 1, total: MONTHLY },
        { key: 'subscription:canceled', n: 1, total: 0 },
      ],
    });
  });

  it('SubscriptionPastDue: past due with its grace date, access kept; SubscriptionUnpaid: the grace gone, access lost', async () => {
    const { sub, history } = activeAlice();
    const row = 'SELECT status, grace_until FROM billing_subscriptions';
    const pastDue = sub.advance('2026-04-03T09:00:00.000Z');
    await given(...history, pastDue).thenTables({
      [row]: [{ status: 'past_due', grace_until: '2026-04-09T09:00:00.000Z' }],
      [MEMBERSHIP]: [{ id: ALICE, membership_status: 'active', subscription_status: 'past_due' }],
      [COUNTS]: [
        { key: 'payment:verified', n: 1, total: MONTHLY },
        { key: 'subscription:past_due', n: 1, total: 0 },
      ],
    });
    const unpaid = sub.advance('2026-04-10T09:00:00.000Z');
    await given(...history, pastDue, unpaid).thenTables({
      [row]: [{ status: 'unpaid', grace_until: null }],
      [MEMBERSHIP]: [{ id: ALICE, membership_status: 'inactive', subscription_status: 'unpaid' }],
      [COUNTS]: [
        { key: 'payment:verified', n: 1, total: MONTHLY },
        { key: 'subscription:unpaid', n: 1, total: 0 },
      ],
    });
  });

  it('past due and unpaid in one append (the scheduler ran after the grace): unpaid, counted once', async () => {
    const { sub, history } = activeAlice();
    const both = sub.advance('2026-05-01T09:00:00.000Z');
    expect(both.events.map((e) => e.type)).toEqual(['SubscriptionPastDue', 'SubscriptionUnpaid']);
    await given(...history, both).thenTables({
      'SELECT status, grace_until, updated_at FROM billing_subscriptions': [
        { status: 'unpaid', grace_until: null, updated_at: '2026-05-01T09:00:00.000Z' },
      ],
      [COUNTS]: [
        { key: 'payment:verified', n: 1, total: MONTHLY },
        { key: 'subscription:unpaid', n: 1, total: 0 },
      ],
    });
  });

  it('a payment after the subscription ended activates a new one: the row replaced, the member active again', async () => {
    const { sub, history } = activeAlice();
    const p2 = payment('p2', ALICE);
    const reactivatedAt = '2026-06-01T09:00:00.000Z';
    await given(
      ...history,
      sub.advance('2026-05-01T09:00:00.000Z'),
      p2.submit(reactivatedAt, HASH2),
      p2.verify(reactivatedAt),
      sub.apply('s2', 'p2', reactivatedAt),
    ).thenTables({
      'SELECT subscription_id, status, current_period_start, current_period_end, last_payment_id FROM billing_subscriptions': [
        {
          subscription_id: 's2',
          status: 'active',
          current_period_start: reactivatedAt,
          current_period_end: '2026-07-01T09:00:00.000Z',
          last_payment_id: 'p2',
        },
      ],
      [MEMBERSHIP]: [{ id: ALICE, membership_status: 'active', subscription_status: 'active' }],
      [COUNTS]: [
        { key: 'payment:verified', n: 2, total: 2 * MONTHLY },
        { key: 'subscription:active', n: 1, total: 0 },
      ],
    });
  });
});
