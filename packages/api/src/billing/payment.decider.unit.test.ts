import { describe, expect, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import type { ChainObservation } from './chain/chainStatus.js';
import { type PaymentCommand, type PaymentEvent, paymentDecider } from './payment.decider.js';

const T0 = '2026-01-15T12:00:00.000Z';
const T1 = '2026-01-15T13:00:00.000Z';
const HASH = 'a'.repeat(64);

const { given } = deciderSpec(paymentDecider);

const requested: PaymentEvent = {
  type: 'PaymentRequested',
  data: {
    paymentId: 'p1',
    userId: 'u1',
    planType: 'annual',
    amountSats: 500000,
    address: 'bc1qaddr',
    addressIndex: 3,
    bip21Uri: 'bitcoin:bc1qaddr?amount=0.005',
    requestedAt: T0,
    expiresAt: T1,
  },
};
const submitCmd = (over: Partial<Extract<PaymentCommand, { type: 'SubmitPayment' }>['data']> = {}): PaymentCommand => ({
  type: 'SubmitPayment',
  data: { paymentId: 'p1', userId: 'u1', userEmail: 'm@example.test', planType: 'annual', amountSats: 500000, txHash: HASH, ...over },
  now: T1,
});
const submitted: PaymentEvent = {
  type: 'PaymentSubmitted',
  data: {
    paymentId: 'p1',
    userId: 'u1',
    userEmail: 'm@example.test',
    planType: 'annual',
    amountSats: 500000,
    txHash: HASH,
    submittedAt: T1,
  },
};
const verify: PaymentCommand = { type: 'VerifyPayment', paymentId: 'p1', verifiedBy: 'admin', now: T1 };
const rejectCmd = (reason = 'No such transaction'): PaymentCommand => ({
  type: 'RejectPayment',
  paymentId: 'p1',
  reason,
  rejectedBy: 'admin',
  now: T1,
});
const verified: PaymentEvent = {
  type: 'PaymentVerified',
  data: { paymentId: 'p1', userId: 'u1', planType: 'annual', amountSats: 500000, txHash: HASH, verifiedBy: 'admin', verifiedAt: T1 },
};
const rejected: PaymentEvent = {
  type: 'PaymentRejected',
  data: { paymentId: 'p1', userId: 'u1', planType: 'annual', amountSats: 500000, reason: 'x', rejectedBy: 'admin', rejectedAt: T1 },
};

describe('payment decider', () => {
  it('requests a payment on an empty stream, not twice', () => {
    const { requestedAt: _, ...data } = requested.data;
    expect(given([]).when({ type: 'RequestPayment', data, now: T0 })).toEqual({ ok: true, events: [requested] });
    expect(given([requested]).when({ type: 'RequestPayment', data, now: T0 })).toMatchObject({
      ok: false,
      error: { code: 'payment.state_conflict' },
    });
  });

  it('submits without a request (the spec flow)', () => {
    expect(given([]).when(submitCmd())).toEqual({ ok: true, events: [submitted] });
  });

  it('submits against an open request, carrying its address', () => {
    const r = given([requested]).when(submitCmd());
    expect(r).toEqual({ ok: true, events: [{ ...submitted, data: { ...submitted.data, address: 'bc1qaddr' } }] });
  });

  it('submits without a hash', () => {
    const r = given([]).when(submitCmd({ txHash: undefined }));
    expect(r.ok && r.events[0]?.data).not.toHaveProperty('txHash', expect.anything());
  });

  it('refuses a malformed hash, another member, another plan or price, a second submission', () => {
    expect(given([]).when(submitCmd({ txHash: 'xyz' }))).toMatchObject({ ok: false, error: { code: 'validation.invalid_input' } });
    expect(given([]).when(submitCmd({ txHash: 'A'.repeat(64) }))).toMatchObject({ ok: false, error: { code: 'validation.invalid_input' } });
    expect(given([requested]).when(submitCmd({ userId: 'u2' }))).toMatchObject({ ok: false, error: { code: 'payment.not_yours' } });
    expect(given([requested]).when(submitCmd({ planType: 'monthly', amountSats: 50000 }))).toMatchObject({
      ok: false,
      error: { code: 'payment.state_conflict' },
    });
    expect(given([requested]).when(submitCmd({ amountSats: 1 }))).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
    expect(given([submitted]).when(submitCmd())).toMatchObject({
      ok: false,
      error: { code: 'payment.state_conflict', status: 409, message: expect.stringMatching(/already been submitted/) },
    });
    expect(given([submitted, verified]).when(submitCmd())).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
  });

  it('verifies a submitted payment exactly once', () => {
    expect(given([requested, submitted]).when(verify)).toEqual({ ok: true, events: [verified] });
    expect(given([submitted, verified]).when(verify)).toEqual({
      ok: false,
      error: { code: 'payment.state_conflict', status: 409, message: 'This payment has already been verified' },
    });
  });

  it('records a missing hash as null on verification', () => {
    const noHash: PaymentEvent = { ...submitted, data: { ...submitted.data, txHash: undefined } };
    const r = given([noHash]).when(verify);
    expect(r.ok && r.events[0]?.data).toMatchObject({ txHash: null });
  });

  it('does not verify unknown, unsubmitted or rejected payments', () => {
    expect(given([]).when(verify)).toMatchObject({ ok: false, error: { code: 'payment.not_found' } });
    expect(given([requested]).when(verify)).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
    expect(given([submitted, rejected]).when(verify)).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
  });

  it('rejects a submitted payment with a trimmed reason', () => {
    const r = given([submitted]).when(rejectCmd('  wrong amount on chain  '));
    expect(r).toEqual({ ok: true, events: [{ ...rejected, data: { ...rejected.data, reason: 'wrong amount on chain' } }] });
  });

  it('does not reject without a reason, twice, after verification, or unknown payments', () => {
    expect(given([submitted]).when(rejectCmd('   '))).toMatchObject({ ok: false, error: { code: 'validation.invalid_input' } });
    expect(given([submitted, rejected]).when(rejectCmd())).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
    expect(given([submitted, verified]).when(rejectCmd())).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
    expect(given([requested]).when(rejectCmd())).toMatchObject({ ok: false, error: { code: 'payment.state_conflict' } });
    expect(given([]).when(rejectCmd())).toMatchObject({ ok: false, error: { code: 'payment.not_found' } });
  });

  it("cancels an open payment when its member's account is erased; nothing verifies, rejects or submits it afterwards", () => {
    const cancel: PaymentCommand = { type: 'CancelPayment', paymentId: 'p1', reason: 'account_erased', canceledBy: 'u1', now: T1 };
    const canceled: PaymentEvent = {
      type: 'PaymentCanceled',
      data: {
        paymentId: 'p1',
        userId: 'u1',
        planType: 'annual',
        amountSats: 500000,
        previousStatus: 'submitted',
        reason: 'account_erased',
        canceledBy: 'u1',
        canceledAt: T1,
      },
    };
    expect(given([requested, submitted]).when(cancel)).toEqual({ ok: true, events: [canceled] });
    expect(given([requested]).when(cancel)).toEqual({
      ok: true,
      events: [{ ...canceled, data: { ...canceled.data, previousStatus: 'requested' } }],
    });
    const erased = "This payment was canceled because the member's account was erased; it cannot be verified";
    expect(given([submitted, canceled]).when(verify)).toEqual({
      ok: false,
      error: { code: 'payment.state_conflict', status: 409, message: erased },
    });
    expect(given([submitted, canceled]).when(rejectCmd())).toEqual({
      ok: false,
      error: { code: 'payment.state_conflict', status: 409, message: erased },
    });
    expect(given([requested, canceled]).when(submitCmd())).toEqual({
      ok: false,
      error: { code: 'payment.state_conflict', status: 409, message: erased },
    });
    // Closed payments stay as they are; a second cancellation adds nothing.
    expect(given([submitted, verified]).when(cancel)).toEqual({ ok: true, events: [] });
    expect(given([submitted, rejected]).when(cancel)).toEqual({ ok: true, events: [] });
    expect(given([submitted, canceled]).when(cancel)).toEqual({ ok: true, events: [] });
    expect(given([]).when(cancel)).toMatchObject({ ok: false, error: { code: 'payment.not_found' } });
  });
});

describe('renewal requests', () => {
  const renewal: PaymentEvent = { ...requested, data: { ...requested.data, renewal: { subscriptionId: 's1', periodEnd: T1 } } };
  const remind = (kind: 'day_before' | 'past_due'): PaymentCommand => ({ type: 'RemindRenewal', paymentId: 'p1', kind, now: T1 });
  const reminded = (kind: 'day_before' | 'past_due'): PaymentEvent => ({
    type: 'PaymentRenewalReminded',
    data: { paymentId: 'p1', userId: 'u1', kind, periodEnd: T1, remindedAt: T1 },
  });
  const closeCmd: PaymentCommand = { type: 'CancelPayment', paymentId: 'p1', reason: 'subscription_canceled', canceledBy: 'u1', now: T1 };

  it('each reminder once, only for an open renewal nobody paid yet', () => {
    expect(given([renewal]).when(remind('day_before'))).toEqual({ ok: true, events: [reminded('day_before')] });
    expect(given([renewal, reminded('day_before')]).when(remind('day_before'))).toEqual({ ok: true, events: [] });
    expect(given([renewal, reminded('day_before')]).when(remind('past_due'))).toEqual({ ok: true, events: [reminded('past_due')] });
    expect(given([requested]).when(remind('day_before'))).toEqual({ ok: true, events: [] }); // not a renewal
    expect(given([renewal, submitted]).when(remind('past_due'))).toEqual({ ok: true, events: [] }); // the member said they paid
  });

  it('a cancel at period end closes an unpaid renewal, not a submitted one; the closed one says why', () => {
    const r = given([renewal]).when(closeCmd);
    expect(r).toMatchObject({
      ok: true,
      events: [{ type: 'PaymentCanceled', data: { reason: 'subscription_canceled', previousStatus: 'requested' } }],
    });
    expect(given([renewal, submitted]).when(closeCmd)).toEqual({ ok: true, events: [] });
    const closed = r.ok ? r.events : [];
    expect(given([renewal, ...closed]).when(submitCmd())).toMatchObject({
      ok: false,
      error: { code: 'payment.state_conflict', message: /closed when the subscription was set to cancel/ },
    });
  });
});

describe('chain checks (a node configured)', () => {
  const observation = (status: ChainObservation['status'], extra: Partial<ChainObservation> = {}): ChainObservation => ({
    status,
    txid: HASH,
    outputIndex: 1,
    receivedSats: 500000,
    confirmations: status === 'confirmed' ? 2 : 0,
    blockHeight: status === 'confirmed' ? 100 : null,
    blockHash: status === 'confirmed' ? 'b'.repeat(64) : null,
    rbf: false,
    ...extra,
  });
  const checked = (status: ChainObservation['status'], extra: Partial<ChainObservation> = {}): PaymentEvent => ({
    type: 'PaymentChainChecked',
    data: { ...observation(status, extra), paymentId: 'p1', checkedAt: T1 },
  });
  const verify = (override?: string): PaymentCommand => ({
    type: 'VerifyPayment',
    paymentId: 'p1',
    verifiedBy: 'admin-1',
    now: T1,
    chainChecked: true,
    ...(override === undefined ? {} : { override: { reason: override } }),
  });

  it('verify refuses payment.chain_<status> unless confirmed; the event keeps the evidence', () => {
    thenError(given([requested, submitted]).when(verify()), 'payment.chain_unchecked');
    thenError(given([requested, submitted, checked('underpaid', { receivedSats: 1 })]).when(verify()), 'payment.chain_underpaid');
    thenError(given([requested, submitted, checked('unconfirmed')]).when(verify()), 'payment.chain_unconfirmed');
    const ok = given([requested, submitted, checked('confirmed')]).when(verify());
    expect(ok).toMatchObject({
      ok: true,
      events: [
        {
          type: 'PaymentVerified',
          data: {
            evidence: {
              txid: HASH,
              outputIndex: 1,
              receivedSats: 500000,
              blockHeight: 100,
              blockHash: 'b'.repeat(64),
              confirmations: 2,
              checkedAt: T1,
            },
          },
        },
      ],
    });
    expect((ok as { events: PaymentEvent[] }).events[0]?.data).not.toHaveProperty('override');
  });

  it('an override with a reason verifies and keeps the reason and the status overridden; an empty reason is refused', () => {
    thenError(given([requested, submitted, checked('wrong_address')]).when(verify('  ')), 'validation.invalid_input');
    expect(given([requested, submitted, checked('wrong_address')]).when(verify('paid from an exchange'))).toMatchObject({
      ok: true,
      events: [{ type: 'PaymentVerified', data: { override: { reason: 'paid from an exchange', chainStatus: 'wrong_address' } } }],
    });
  });

  it('recording: a paid request nobody submitted is submitted with the chain hash; the same observation again is no news', () => {
    const record = (o: ChainObservation): PaymentCommand => ({
      type: 'RecordChainCheck',
      paymentId: 'p1',
      observation: o,
      submitAs: { userEmail: 'm@example.test' },
      now: T1,
    });
    const r = given([requested]).when(record(observation('unconfirmed')));
    expect(r).toMatchObject({
      ok: true,
      events: [{ type: 'PaymentSubmitted', data: { txHash: HASH, address: 'bc1qaddr' } }, { type: 'PaymentChainChecked' }],
    });
    thenEvents(given([requested, checked('awaiting', { txid: null })]).when(record(observation('awaiting', { txid: null }))), []);
  });

  it('a verified payment that was confirmed and leaves the chain is flagged, never revoked', () => {
    const verified: PaymentEvent = {
      type: 'PaymentVerified',
      data: { paymentId: 'p1', userId: 'u1', planType: 'annual', amountSats: 500000, txHash: HASH, verifiedBy: 'admin-1', verifiedAt: T1 },
    };
    const r = given([requested, submitted, checked('confirmed'), verified]).when({
      type: 'RecordChainCheck',
      paymentId: 'p1',
      observation: observation('conflicted', { blockHash: null, blockHeight: null }),
      now: T1,
    });
    expect(r).toMatchObject({
      ok: true,
      events: [
        { type: 'PaymentChainChecked' },
        { type: 'PaymentLeftChain', data: { previousBlockHash: 'b'.repeat(64), status: 'conflicted' } },
      ],
    });
  });
});
