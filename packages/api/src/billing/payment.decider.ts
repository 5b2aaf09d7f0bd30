/**
 * One Bitcoin payment, stream `payment-{paymentId}`: requested (an invoice with an address and an
 * expiry) → submitted by the member (optionally with the transaction hash) → verified or rejected
 * by an admin. A member may also submit without a prior request (the spec's flow). Verification
 * happens at most once: the command handler's optimistic concurrency makes a second admin
 * re-decide against the verified state and get "already verified".
 * A payment still open (requested or submitted) when its member's account is erased is canceled
 * (`PaymentCanceled`, reason `account_erased`): nobody can verify it afterwards.
 */
import { accept, type Decider, reject } from '../shared/decider.js';
import type { PaymentKind } from './plans.js';

export interface PaymentRequested {
  type: 'PaymentRequested';
  data: {
    paymentId: string;
    userId: string;
    planType: PaymentKind;
    amountSats: number;
    address: string;
    addressIndex?: number;
    bip21Uri: string;
    /** Set when the payment pays for a custom video request (`planType` 'custom'). */
    customRequestId?: string;
    requestedAt: string;
    expiresAt: string;
  };
}
export interface PaymentSubmitted {
  type: 'PaymentSubmitted';
  data: {
    paymentId: string;
    userId: string;
    userEmail: string;
    planType: PaymentKind;
    amountSats: number;
    address?: string;
    txHash?: string;
    customRequestId?: string;
    submittedAt: string;
  };
}
export interface PaymentVerified {
  type: 'PaymentVerified';
  data: {
    paymentId: string;
    userId: string;
    planType: PaymentKind;
    amountSats: number;
    txHash: string | null;
    customRequestId?: string;
    verifiedBy: string;
    verifiedAt: string;
  };
}
export interface PaymentRejected {
  type: 'PaymentRejected';
  data: {
    paymentId: string;
    userId: string;
    planType: PaymentKind;
    amountSats: number;
    reason: string;
    rejectedBy: string;
    rejectedAt: string;
  };
}
/** Why an open payment was closed without a verification; `account_erased`: its member's account was erased. */
export type PaymentCancelReason = 'account_erased';
/** An open payment closed without money changing hands in the books: it can no longer be submitted, verified or rejected. */
export interface PaymentCanceled {
  type: 'PaymentCanceled';
  data: {
    paymentId: string;
    userId: string;
    planType: PaymentKind;
    amountSats: number;
    /** What the payment was when it was canceled. */
    previousStatus: 'requested' | 'submitted';
    reason: PaymentCancelReason;
    canceledBy: string;
    canceledAt: string;
  };
}
export type PaymentEvent = PaymentRequested | PaymentSubmitted | PaymentVerified | PaymentRejected | PaymentCanceled;
export const PAYMENT_EVENT_TYPES = [
  'PaymentRequested',
  'PaymentSubmitted',
  'PaymentVerified',
  'PaymentRejected',
  'PaymentCanceled',
] as const;

/** What verifying (or rejecting, or submitting) a payment canceled by its member's erasure answers. */
export const CANCELED_BY_ERASURE = "This payment was canceled because the member's account was erased; it cannot be verified";

export type PaymentCommand =
  | { type: 'RequestPayment'; data: Omit<PaymentRequested['data'], 'requestedAt'>; now: string }
  | { type: 'SubmitPayment'; data: Omit<PaymentSubmitted['data'], 'submittedAt' | 'address'>; now: string }
  | { type: 'VerifyPayment'; paymentId: string; verifiedBy: string; now: string }
  | { type: 'RejectPayment'; paymentId: string; reason: string; rejectedBy: string; now: string }
  | { type: 'CancelPayment'; paymentId: string; reason: PaymentCancelReason; canceledBy: string; now: string };

export type PaymentStatus = 'none' | 'requested' | 'submitted' | 'verified' | 'rejected' | 'canceled';

export interface PaymentState {
  status: PaymentStatus;
  paymentId?: string;
  userId?: string;
  planType?: PaymentKind;
  customRequestId?: string;
  amountSats?: number;
  address?: string;
  txHash?: string;
}

export const paymentStreamId = (paymentId: string) => `payment-${paymentId}`;

const TX_HASH = /^[0-9a-f]{64}$/;
export const TX_HASH_PROBLEM = 'transactionHash: must be 64 hexadecimal characters';

/**
 * A transaction hash as members type it (any case, spaces around, empty for none) in the stored
 * form: trimmed, lower case, `undefined` for none; or `null` when it cannot be a transaction id.
 * @example normalizeTxHash(' AB…(64 hex) ') // 'ab…'
 */
export function normalizeTxHash(value: string | null | undefined): string | undefined | null {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  const lower = trimmed.toLowerCase();
  return TX_HASH.test(lower) ? lower : null;
}

function decide(command: PaymentCommand, state: PaymentState) {
  switch (command.type) {
    case 'RequestPayment': {
      if (state.status !== 'none') return reject('payment.state_conflict', 'This payment request already exists');
      return accept<PaymentEvent>({ type: 'PaymentRequested', data: { ...command.data, requestedAt: command.now } });
    }
    case 'SubmitPayment': {
      const d = command.data;
      if (d.txHash !== undefined && !TX_HASH.test(d.txHash)) return reject('validation.invalid_input', TX_HASH_PROBLEM);
      if (state.status === 'canceled') return reject('payment.state_conflict', CANCELED_BY_ERASURE);
      if (state.status === 'submitted')
        return reject('payment.state_conflict', 'This payment has already been submitted and is awaiting verification');
      if (state.status === 'verified' || state.status === 'rejected')
        return reject('payment.state_conflict', `This payment has already been ${state.status}`);
      if (state.status === 'requested') {
        if (state.userId !== d.userId) return reject('payment.not_yours', 'This payment request belongs to another account');
        if (state.planType !== d.planType || state.amountSats !== d.amountSats)
          return reject('payment.state_conflict', 'This payment request is for another plan or price; please request a new payment');
      }
      const address = state.address === undefined ? {} : { address: state.address };
      return accept<PaymentEvent>({ type: 'PaymentSubmitted', data: { ...d, ...address, submittedAt: command.now } });
    }
    case 'VerifyPayment': {
      if (state.status === 'none') return reject('payment.not_found', 'Payment not found');
      if (state.status === 'requested') return reject('payment.state_conflict', 'This payment has not been submitted yet');
      if (state.status === 'verified') return reject('payment.state_conflict', 'This payment has already been verified');
      if (state.status === 'rejected') return reject('payment.state_conflict', 'This payment was rejected and cannot be verified');
      if (state.status === 'canceled') return reject('payment.state_conflict', CANCELED_BY_ERASURE);
      return accept<PaymentEvent>({
        type: 'PaymentVerified',
        data: {
          paymentId: command.paymentId,
          userId: state.userId as string,
          planType: state.planType as PaymentKind,
          amountSats: state.amountSats as number,
          txHash: state.txHash ?? null,
          ...(state.customRequestId ? { customRequestId: state.customRequestId } : {}),
          verifiedBy: command.verifiedBy,
          verifiedAt: command.now,
        },
      });
    }
    case 'RejectPayment': {
      const reason = command.reason.trim();
      if (!reason) return reject('validation.invalid_input', 'reason: Please give a reason for rejecting the payment');
      if (state.status === 'none') return reject('payment.not_found', 'Payment not found');
      if (state.status === 'requested') return reject('payment.state_conflict', 'This payment has not been submitted yet');
      if (state.status === 'verified')
        return reject('payment.state_conflict', 'This payment has already been verified and cannot be rejected');
      if (state.status === 'rejected') return reject('payment.state_conflict', 'This payment has already been rejected');
      if (state.status === 'canceled') return reject('payment.state_conflict', CANCELED_BY_ERASURE);
      return accept<PaymentEvent>({
        type: 'PaymentRejected',
        data: {
          paymentId: command.paymentId,
          userId: state.userId as string,
          planType: state.planType as PaymentKind,
          amountSats: state.amountSats as number,
          reason,
          rejectedBy: command.rejectedBy,
          rejectedAt: command.now,
        },
      });
    }
    case 'CancelPayment': {
      if (state.status === 'none') return reject('payment.not_found', 'Payment not found');
      // Only an open payment is canceled; a verified or rejected one is already closed (nothing to do).
      if (state.status !== 'requested' && state.status !== 'submitted') return accept<PaymentEvent>();
      return accept<PaymentEvent>({
        type: 'PaymentCanceled',
        data: {
          paymentId: command.paymentId,
          userId: state.userId as string,
          planType: state.planType as PaymentKind,
          amountSats: state.amountSats as number,
          previousStatus: state.status,
          reason: command.reason,
          canceledBy: command.canceledBy,
          canceledAt: command.now,
        },
      });
    }
  }
}

function evolve(state: PaymentState, event: PaymentEvent): PaymentState {
  switch (event.type) {
    case 'PaymentRequested': {
      const { paymentId, userId, planType, amountSats, address, customRequestId } = event.data;
      return { status: 'requested', paymentId, userId, planType, amountSats, address, ...(customRequestId ? { customRequestId } : {}) };
    }
    case 'PaymentSubmitted': {
      const { paymentId, userId, planType, amountSats, txHash } = event.data;
      return { ...state, status: 'submitted', paymentId, userId, planType, amountSats, txHash };
    }
    case 'PaymentVerified':
      return { ...state, status: 'verified' };
    case 'PaymentRejected':
      return { ...state, status: 'rejected' };
    case 'PaymentCanceled':
      return { ...state, status: 'canceled' };
    default:
      return state;
  }
}

export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
