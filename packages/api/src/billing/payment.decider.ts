/**
 * One Bitcoin payment, stream `payment-{paymentId}`: requested (an invoice with an address and an
 * expiry) → submitted by the member (optionally with the transaction hash) → verified or rejected
 * by an admin. A member may also submit without a prior request (the spec's flow). Verification
 * happens at most once: the command handler's optimistic concurrency makes a second admin
 * re-decide against the verified state and get "already verified".
 * A payment still open (requested or submitted) when its member's account is erased is canceled
 * (`PaymentCanceled`, reason `account_erased`): nobody can verify it afterwards.
 * A renewal request (`renewal` set, opened by the lifecycle inside the notice window) is the same
 * payment with two more steps: reminders (`PaymentRenewalReminded`, each kind once, only while
 * unpaid) and its close when the member cancels at period end (`subscription_canceled`).
 */
import { accept, type Decider, reject } from '../shared/decider.js';
import type { ErrorCode } from '../shared/errors.js';
import { type ChainObservation, type ChainStatus, sameObservation } from './chain/chainStatus.js';
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
    /**
     * Set when the lifecycle opened it to renew a subscription: which one, and the end of the period
     * it renews (paid, the next period starts there). It expires at that end plus the grace period.
     */
    renewal?: { subscriptionId: string; periodEnd: string };
    requestedAt: string;
    expiresAt: string;
  };
}
/** Which reminder of an open renewal: the day before the period ends, or when the subscription went past due. */
export type RenewalReminderKind = 'day_before' | 'past_due';
/** The member was reminded to pay an open renewal request (the mail follows from this event). */
export interface PaymentRenewalReminded {
  type: 'PaymentRenewalReminded';
  data: { paymentId: string; userId: string; kind: RenewalReminderKind; periodEnd: string; remindedAt: string };
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
    /** What the chain showed at that moment (a node configured and the payment seen): an auditor re-checks it against any node. */
    evidence?: PaymentEvidence;
    /** The admin verified although the chain did not show the payment confirmed, and said why. */
    override?: { reason: string; chainStatus: ChainStatus };
  };
}
/** The chain's evidence kept in a verification. */
export interface PaymentEvidence {
  txid: string;
  outputIndex: number | null;
  receivedSats: number;
  blockHash: string | null;
  blockHeight: number | null;
  confirmations: number;
  checkedAt: string;
}
/** What the watcher saw on the chain for this payment, recorded when it changes (confirmations up to the watch depth). */
export interface PaymentChainChecked {
  type: 'PaymentChainChecked';
  data: ChainObservation & { paymentId: string; checkedAt: string };
}
/** A verified payment's transaction left the best chain (a reorg, a double spend): flagged to the admin, never revoked. */
export interface PaymentLeftChain {
  type: 'PaymentLeftChain';
  data: {
    paymentId: string;
    userId: string;
    planType: PaymentKind;
    amountSats: number;
    txid: string | null;
    /** The block it was confirmed in. */
    previousBlockHash: string | null;
    status: ChainStatus;
    flaggedAt: string;
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
/**
 * Why an open payment was closed without a verification: `account_erased`, its member's account was
 * erased; `subscription_canceled`, a renewal request whose subscription the member set to cancel at
 * the period end (only while nothing was submitted for it).
 */
export type PaymentCancelReason = 'account_erased' | 'subscription_canceled';
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
export type PaymentEvent =
  | PaymentRequested
  | PaymentSubmitted
  | PaymentVerified
  | PaymentRejected
  | PaymentCanceled
  | PaymentChainChecked
  | PaymentLeftChain
  | PaymentRenewalReminded;
export const PAYMENT_EVENT_TYPES = [
  'PaymentRequested',
  'PaymentSubmitted',
  'PaymentVerified',
  'PaymentRejected',
  'PaymentCanceled',
  'PaymentChainChecked',
  'PaymentLeftChain',
  'PaymentRenewalReminded',
] as const;

/**
 * Why the chain does not let a payment be verified without an override: the 409's code and message
 * per status. The codes are spelled out (not built from the status) so the error catalogue's check
 * that every code is answered somewhere (shared/errors.unit.test.ts) finds them.
 */
export const CHAIN_REFUSALS: Record<Exclude<ChainStatus, 'confirmed'>, { code: ErrorCode; message: string }> = {
  unchecked: { code: 'payment.chain_unchecked', message: 'The chain has not been checked for this payment yet' },
  awaiting: { code: 'payment.chain_awaiting', message: 'Nothing paying this request has been seen on the chain yet' },
  not_found: { code: 'payment.chain_not_found', message: 'The submitted transaction is neither in the chain nor in the mempool' },
  wrong_address: { code: 'payment.chain_wrong_address', message: "The submitted transaction pays nothing to this payment's address" },
  underpaid: { code: 'payment.chain_underpaid', message: "The transaction pays less than the plan's price" },
  unconfirmed: { code: 'payment.chain_unconfirmed', message: 'The transaction does not have enough confirmations yet' },
  conflicted: { code: 'payment.chain_conflicted', message: 'The transaction was replaced, double-spent or left the chain' },
};

/** What verifying (or rejecting, or submitting) a payment canceled by its member's erasure answers. */
export const CANCELED_BY_ERASURE = "This payment was canceled because the member's account was erased; it cannot be verified";
/** What acting on a renewal request closed by the member's cancel at period end answers. */
export const CLOSED_BY_CANCEL = 'This renewal request was closed when the subscription was set to cancel; please request a new payment';
const canceledMessage = (state: PaymentState) => (state.canceledFor === 'subscription_canceled' ? CLOSED_BY_CANCEL : CANCELED_BY_ERASURE);

export type PaymentCommand =
  | { type: 'RequestPayment'; data: Omit<PaymentRequested['data'], 'requestedAt'>; now: string }
  | { type: 'SubmitPayment'; data: Omit<PaymentSubmitted['data'], 'submittedAt' | 'address'>; now: string }
  | {
      type: 'VerifyPayment';
      paymentId: string;
      verifiedBy: string;
      now: string;
      /** A Bitcoin node is configured: the chain's status must be `confirmed`, unless overridden with a reason. */
      chainChecked?: boolean;
      override?: { reason: string };
    }
  | {
      type: 'RecordChainCheck';
      paymentId: string;
      observation: ChainObservation;
      /** Set when a payment nobody submitted is seen paid: it is submitted on the member's behalf, with the chain's hash. */
      submitAs?: { userEmail: string };
      now: string;
    }
  | { type: 'RejectPayment'; paymentId: string; reason: string; rejectedBy: string; now: string }
  | { type: 'CancelPayment'; paymentId: string; reason: PaymentCancelReason; canceledBy: string; now: string }
  | { type: 'RemindRenewal'; paymentId: string; kind: RenewalReminderKind; now: string };

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
  /** The chain's last observation (a node configured). */
  chain?: PaymentChainChecked['data'];
  renewal?: { subscriptionId: string; periodEnd: string };
  /** The renewal reminders already sent. */
  reminded?: RenewalReminderKind[];
  canceledFor?: PaymentCancelReason;
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
      if (state.status === 'canceled') return reject('payment.state_conflict', canceledMessage(state));
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
      if (state.status === 'canceled') return reject('payment.state_conflict', canceledMessage(state));
      const chainStatus: ChainStatus = state.chain?.status ?? 'unchecked';
      const overrideReason = command.override?.reason.trim();
      if (command.override && !overrideReason)
        return reject('validation.invalid_input', 'override.reason: Please say why you verify anyway');
      if (command.chainChecked && chainStatus !== 'confirmed' && !overrideReason)
        return reject(
          CHAIN_REFUSALS[chainStatus].code,
          `${CHAIN_REFUSALS[chainStatus].message}; verify with an override and a reason if you checked it yourself`,
        );
      const chain = state.chain;
      const evidence: PaymentEvidence | undefined =
        chain?.txid && chain.status !== 'not_found'
          ? {
              txid: chain.txid,
              outputIndex: chain.outputIndex,
              receivedSats: chain.receivedSats,
              blockHash: chain.blockHash,
              blockHeight: chain.blockHeight,
              confirmations: chain.confirmations,
              checkedAt: chain.checkedAt,
            }
          : undefined;
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
          ...(evidence ? { evidence } : {}),
          ...(command.chainChecked && overrideReason && chainStatus !== 'confirmed'
            ? { override: { reason: overrideReason, chainStatus } }
            : {}),
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
      if (state.status === 'canceled') return reject('payment.state_conflict', canceledMessage(state));
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
    case 'RecordChainCheck':
      return decideChainCheck(command, state);
    case 'RemindRenewal': {
      // Only an open renewal nobody has paid yet, and each reminder once.
      if (state.status !== 'requested' || !state.renewal || state.reminded?.includes(command.kind)) return accept<PaymentEvent>();
      return accept<PaymentEvent>({
        type: 'PaymentRenewalReminded',
        data: {
          paymentId: command.paymentId,
          userId: state.userId as string,
          kind: command.kind,
          periodEnd: state.renewal.periodEnd,
          remindedAt: command.now,
        },
      });
    }
    case 'CancelPayment': {
      if (state.status === 'none') return reject('payment.not_found', 'Payment not found');
      // Only an open payment is canceled; a verified or rejected one is already closed (nothing to do).
      if (state.status !== 'requested' && state.status !== 'submitted') return accept<PaymentEvent>();
      // A member who already said they paid a renewal keeps it for an admin to decide.
      if (command.reason === 'subscription_canceled' && state.status !== 'requested') return accept<PaymentEvent>();
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

const PAID_STATUSES: ReadonlySet<ChainStatus> = new Set(['underpaid', 'unconfirmed', 'confirmed']);
/** Whether the chain shows the request paid (confirmed or not, in full or not): what the member's page calls received. */
export const chainShowsPaid = (status: ChainStatus): status is 'underpaid' | 'unconfirmed' | 'confirmed' => PAID_STATUSES.has(status);

/**
 * Records what the chain shows when it changed. A payment nobody submitted is submitted with the
 * chain's hash when its address is seen paid; a verified payment that was confirmed and no longer
 * is gets flagged (`PaymentLeftChain`), never revoked. Closed payments are no longer recorded.
 */
function decideChainCheck(command: Extract<PaymentCommand, { type: 'RecordChainCheck' }>, state: PaymentState) {
  if (state.status === 'none' || state.status === 'rejected' || state.status === 'canceled') return accept<PaymentEvent>();
  const { observation: o, now } = command;
  if (sameObservation(state.chain, o)) return accept<PaymentEvent>();
  const events: PaymentEvent[] = [];
  if (state.status === 'requested' && command.submitAs && o.txid && PAID_STATUSES.has(o.status))
    events.push({
      type: 'PaymentSubmitted',
      data: {
        paymentId: command.paymentId,
        userId: state.userId as string,
        userEmail: command.submitAs.userEmail,
        planType: state.planType as PaymentKind,
        amountSats: state.amountSats as number,
        ...(state.address ? { address: state.address } : {}),
        txHash: o.txid,
        ...(state.customRequestId ? { customRequestId: state.customRequestId } : {}),
        submittedAt: now,
      },
    });
  events.push({ type: 'PaymentChainChecked', data: { ...o, paymentId: command.paymentId, checkedAt: now } });
  if (state.status === 'verified' && state.chain?.status === 'confirmed' && o.status !== 'confirmed')
    events.push({
      type: 'PaymentLeftChain',
      data: {
        paymentId: command.paymentId,
        userId: state.userId as string,
        planType: state.planType as PaymentKind,
        amountSats: state.amountSats as number,
        txid: state.chain.txid,
        previousBlockHash: state.chain.blockHash,
        status: o.status,
        flaggedAt: now,
      },
    });
  return accept<PaymentEvent>(...events);
}

function evolve(state: PaymentState, event: PaymentEvent): PaymentState {
  switch (event.type) {
    case 'PaymentRequested': {
      const { paymentId, userId, planType, amountSats, address, customRequestId, renewal } = event.data;
      return {
        status: 'requested',
        paymentId,
        userId,
        planType,
        amountSats,
        address,
        ...(customRequestId ? { customRequestId } : {}),
        ...(renewal ? { renewal } : {}),
      };
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
      return { ...state, status: 'canceled', canceledFor: event.data.reason };
    case 'PaymentChainChecked':
      return { ...state, chain: event.data };
    case 'PaymentRenewalReminded':
      return { ...state, reminded: [...(state.reminded ?? []), event.data.kind] };
    default:
      return state;
  }
}

export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
