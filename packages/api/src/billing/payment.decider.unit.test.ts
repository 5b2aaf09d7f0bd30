import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
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
