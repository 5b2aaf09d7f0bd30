/**
 * The full payment history, replayed from events: one row per request, submission, verification or
 * rejection or cancellation, in log order, with the member's e-mail, the plan, the BTC amount, the address, the
 * transaction hash and the acting admin; a verification also has the chain's evidence (or the admin's override). Rows are yielded as the log streams past; only e-mails
 * (per member) and addresses (per payment) are remembered.
 */

import { satsToBtc } from '@members/ui/money';
import type { RecordedEvent } from '../eventstore/types.js';

export type PaymentAction = 'requested' | 'submitted' | 'verified' | 'rejected' | 'canceled';

export interface PaymentHistoryRow {
  position: number;
  time: string;
  action: PaymentAction;
  paymentId: string;
  userId: string;
  memberEmail: string | null;
  planType: string;
  amountSats: number;
  btcAmount: string;
  address: string | null;
  txHash: string | null;
  actingAdminId: string | null;
  actingAdminEmail: string | null;
  /** The acting staff member's display name (issue 42; the bootstrapped owner's is "Admin"). */
  actingAdminName: string | null;
  reason: string | null;
  /** A verification's chain evidence (a node configured): what `audit bitcoin-check` re-checks. */
  evidenceTxid: string | null;
  evidenceOutputIndex: number | null;
  evidenceReceivedSats: number | null;
  evidenceBlockHash: string | null;
  evidenceBlockHeight: number | null;
  evidenceConfirmations: number | null;
  /** The admin verified although the chain did not show it confirmed: why, and what the chain showed. */
  overrideReason: string | null;
  overriddenChainStatus: string | null;
}

const ACTIONS: Record<string, PaymentAction> = {
  PaymentRequested: 'requested',
  PaymentSubmitted: 'submitted',
  PaymentVerified: 'verified',
  PaymentRejected: 'rejected',
  PaymentCanceled: 'canceled',
};
const TIME_FIELD: Record<PaymentAction, string> = {
  requested: 'requestedAt',
  submitted: 'submittedAt',
  verified: 'verifiedAt',
  rejected: 'rejectedAt',
  canceled: 'canceledAt',
};

export interface PaymentHistoryOptions {
  from?: Date;
  to?: Date;
}

const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * @example for await (const row of paymentHistory(store.streamAll(), { from: new Date('2026-01-01') })) …
 */
export async function* paymentHistory(
  events: AsyncIterable<RecordedEvent>,
  opts: PaymentHistoryOptions = {},
): AsyncGenerator<PaymentHistoryRow> {
  const emails = new Map<string, string>();
  const names = new Map<string, string>();
  const addresses = new Map<string, string>();
  const txHashes = new Map<string, string>();
  const from = opts.from?.getTime() ?? Number.NEGATIVE_INFINITY;
  const to = opts.to?.getTime() ?? Number.POSITIVE_INFINITY;
  for await (const e of events) {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'UserRegistered' && typeof d.email === 'string') {
      emails.set(String(d.userId), d.email);
      if (d.role === 'admin' && typeof d.firstName === 'string') names.set(String(d.userId), d.firstName);
      continue;
    }
    // A staff account starts with its acceptance of the invitation (issue 42).
    if (e.type === 'StaffJoined' && typeof d.email === 'string') {
      emails.set(String(d.userId), d.email);
      if (typeof d.displayName === 'string') names.set(String(d.userId), d.displayName);
      continue;
    }
    const action = ACTIONS[e.type];
    if (!action) continue;
    const paymentId = String(d.paymentId);
    const userId = String(d.userId);
    if (s(d.address)) addresses.set(paymentId, d.address as string);
    if (s(d.txHash)) txHashes.set(paymentId, d.txHash as string);
    if (action === 'submitted' && s(d.userEmail) && !emails.has(userId)) emails.set(userId, d.userEmail as string);
    // Verified and rejected payments leave no open state to remember.
    const address = addresses.get(paymentId) ?? null;
    const txHash = s(d.txHash) ?? txHashes.get(paymentId) ?? null;
    if (action === 'verified' || action === 'rejected' || action === 'canceled') {
      addresses.delete(paymentId);
      txHashes.delete(paymentId);
    }
    const time = s(d[TIME_FIELD[action]]) ?? e.recordedAt;
    const t = new Date(time).getTime();
    if (t < from || t > to) continue;
    const admin = s(d.verifiedBy) ?? s(d.rejectedBy) ?? (action === 'canceled' ? s(d.canceledBy) : null);
    const amountSats = Number(d.amountSats ?? 0);
    yield {
      position: e.position,
      time,
      action,
      paymentId,
      userId,
      memberEmail: s(d.userEmail) ?? emails.get(userId) ?? null,
      planType: String(d.planType ?? ''),
      amountSats,
      btcAmount: satsToBtc(amountSats),
      address,
      txHash,
      actingAdminId: admin,
      actingAdminEmail: admin ? (emails.get(admin) ?? null) : null,
      actingAdminName: admin ? (names.get(admin) ?? null) : null,
      reason: s(d.reason),
      ...evidenceColumns(d),
    };
  }
}

type Evidence = {
  txid?: unknown;
  outputIndex?: unknown;
  receivedSats?: unknown;
  blockHash?: unknown;
  blockHeight?: unknown;
  confirmations?: unknown;
};
const n = (v: unknown) => (typeof v === 'number' ? v : null);

function evidenceColumns(d: Record<string, unknown>) {
  const e = (d.evidence ?? {}) as Evidence;
  const o = (d.override ?? {}) as { reason?: unknown; chainStatus?: unknown };
  return {
    evidenceTxid: s(e.txid),
    evidenceOutputIndex: n(e.outputIndex),
    evidenceReceivedSats: n(e.receivedSats),
    evidenceBlockHash: s(e.blockHash),
    evidenceBlockHeight: n(e.blockHeight),
    evidenceConfirmations: n(e.confirmations),
    overrideReason: s(o.reason),
    overriddenChainStatus: s(o.chainStatus),
  };
}

export const PAYMENT_HISTORY_COLUMNS: (keyof PaymentHistoryRow)[] = [
  'position',
  'time',
  'action',
  'paymentId',
  'userId',
  'memberEmail',
  'planType',
  'amountSats',
  'btcAmount',
  'address',
  'txHash',
  'actingAdminId',
  'actingAdminEmail',
  'actingAdminName',
  'reason',
  'evidenceTxid',
  'evidenceOutputIndex',
  'evidenceReceivedSats',
  'evidenceBlockHash',
  'evidenceBlockHeight',
  'evidenceConfirmations',
  'overrideReason',
  'overriddenChainStatus',
];
