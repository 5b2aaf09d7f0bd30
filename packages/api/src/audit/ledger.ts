/**
 * The auditor's own replay of billing: a fresh in-memory ledger built from the raw events only
 * (never from the read models it is meant to check). It holds one entry per payment, per member
 * and per subscription — never the events themselves — so a walk over a million events stays
 * within the size of the customer base.
 */
import type { RecordedEvent } from '../eventstore/types.js';
import { parseDateBound } from './formats.js';

export interface LedgerPayment {
  paymentId: string;
  userId: string;
  planType: string;
  amountSats: number;
  status: 'requested' | 'submitted' | 'verified' | 'rejected' | 'canceled';
  address?: string;
  txHash?: string | null;
  verifiedAt?: string;
  /** The custom video request the payment pays for (`planType` 'custom'). */
  customRequestId?: string;
  /** A renewal request: the end of the period it renews (paid, the next period starts there). */
  renewalOfPeriodEnd?: string;
  /** Position of the event that set the current status. */
  position: number;
}

export interface LedgerSubscription {
  userId: string;
  subscriptionId: string;
  status: 'active' | 'canceled' | 'past_due' | 'unpaid';
  planType: string;
  periodStart: string;
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  /** The payment that paid for the period last. */
  paymentId: string;
  amountSats: number;
  /** Every payment applied to this subscription id, in order, with the plan each paid for. */
  applied: { paymentId: string; planType: string }[];
  position: number;
  at: string;
}

/** A custom video request marked paid (`CustomRequestPaid`): by which payment, of whom, how much. */
export interface LedgerRequestPaid {
  requestId: string;
  userId: string;
  paymentId: string;
  amountSats: number;
  position: number;
}

export interface Ledger {
  payments: Map<string, LedgerPayment>;
  /** Custom video requests marked paid, by request id. */
  paidRequests: Map<string, LedgerRequestPaid>;
  /** The current (latest) subscription of each member. */
  subscriptions: Map<string, LedgerSubscription>;
  emails: Map<string, string>;
  /** Last position applied. */
  position: number;
  events: number;
}

/** Active, or past due within the grace period: the member may watch (billing's `grantsAccess`). */
export const grantsAccess = (s: LedgerSubscription | undefined) => s?.status === 'active' || s?.status === 'past_due';

export function emptyLedger(): Ledger {
  return { payments: new Map(), paidRequests: new Map(), subscriptions: new Map(), emails: new Map(), position: 0, events: 0 };
}

type Data = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function applyPayment(l: Ledger, e: RecordedEvent, d: Data): void {
  const paymentId = String(d.paymentId);
  const prev = l.payments.get(paymentId);
  const base: LedgerPayment = prev ?? {
    paymentId,
    userId: String(d.userId),
    planType: String(d.planType),
    amountSats: Number(d.amountSats),
    status: 'requested',
    position: e.position,
  };
  const next: LedgerPayment = { ...base, position: e.position };
  const customRequestId = str(d.customRequestId);
  if (customRequestId) next.customRequestId = customRequestId;
  switch (e.type) {
    case 'PaymentRequested':
      next.status = 'requested';
      next.address = str(d.address);
      if (d.renewal) next.renewalOfPeriodEnd = String((d.renewal as { periodEnd: string }).periodEnd);
      break;
    case 'PaymentSubmitted':
      next.status = 'submitted';
      next.userId = String(d.userId);
      next.planType = String(d.planType);
      next.amountSats = Number(d.amountSats);
      next.address = str(d.address) ?? base.address;
      next.txHash = str(d.txHash) ?? null;
      break;
    case 'PaymentVerified':
      next.status = 'verified';
      next.txHash = str(d.txHash) ?? base.txHash ?? null;
      next.amountSats = Number(d.amountSats);
      next.verifiedAt = str(d.verifiedAt) ?? e.recordedAt;
      break;
    case 'PaymentRejected':
      next.status = 'rejected';
      break;
    case 'PaymentCanceled':
      // An open payment closed by the member's erasure: never revenue, no longer pending.
      next.status = 'canceled';
      break;
  }
  l.payments.set(paymentId, next);
}

const SUBSCRIPTION_STATUS: Record<string, LedgerSubscription['status'] | undefined> = {
  SubscriptionPastDue: 'past_due',
  SubscriptionUnpaid: 'unpaid',
  SubscriptionCanceled: 'canceled',
};

function applySubscription(l: Ledger, e: RecordedEvent, d: Data): void {
  const userId = String(d.userId);
  const prev = l.subscriptions.get(userId);
  const snap = {
    userId,
    subscriptionId: String(d.subscriptionId),
    planType: String(d.planType),
    periodStart: String(d.periodStart),
    periodEnd: String(d.periodEnd),
    paymentId: String(d.paymentId),
    amountSats: Number(d.amountSats),
    position: e.position,
    at: e.recordedAt,
  };
  const applied = { paymentId: snap.paymentId, planType: snap.planType };
  switch (e.type) {
    case 'SubscriptionActivated':
      l.subscriptions.set(userId, { ...snap, status: 'active', cancelAtPeriodEnd: false, applied: [applied] });
      return;
    case 'SubscriptionRenewed':
      l.subscriptions.set(userId, { ...snap, status: 'active', cancelAtPeriodEnd: false, applied: [...(prev?.applied ?? []), applied] });
      return;
    case 'SubscriptionCancelRequested':
    case 'SubscriptionReactivated':
      l.subscriptions.set(userId, {
        ...snap,
        status: prev?.status ?? 'active',
        cancelAtPeriodEnd: e.type === 'SubscriptionCancelRequested',
        applied: prev?.applied ?? [],
      });
      return;
    default: {
      // Past due and unpaid keep a pending cancellation (billing's evolve); canceled clears it.
      const status = SUBSCRIPTION_STATUS[e.type];
      const cancelAtPeriodEnd = status === 'canceled' ? false : (prev?.cancelAtPeriodEnd ?? false);
      if (status) l.subscriptions.set(userId, { ...snap, status, cancelAtPeriodEnd, applied: prev?.applied ?? [] });
    }
  }
}

/** Applies one event to the ledger (ignores events billing auditors do not need). */
export function applyToLedger(l: Ledger, e: RecordedEvent): void {
  const d = e.data as Data;
  l.position = e.position;
  l.events += 1;
  if (e.type === 'UserRegistered' && typeof d.email === 'string') l.emails.set(String(d.userId), d.email);
  else if (e.type.startsWith('Payment') && d.paymentId !== undefined) applyPayment(l, e, d);
  else if (e.type === 'CustomRequestPaid')
    l.paidRequests.set(String(d.requestId), {
      requestId: String(d.requestId),
      userId: String(d.userId),
      paymentId: String(d.paymentId),
      amountSats: Number(d.amountSats),
      position: e.position,
    });
  else if (e.type.startsWith('Subscription') && d.userId !== undefined && d.subscriptionId !== undefined) applySubscription(l, e, d);
}

/** The point in history to stop at: a position, or an instant (events recorded after it are left out). */
export type ReplayPoint = { position: number } | { time: Date };

/** A log position, or a date as every audit command reads it (`parseDateBound`: a bare day means through its end, UTC). */
export function parseReplayPoint(text: string): ReplayPoint | undefined {
  if (/^\d+$/.test(text.trim())) return { position: Number(text.trim()) };
  const t = parseDateBound(text, true);
  return t === undefined || t === 'invalid' ? undefined : { time: t };
}

export function isAfter(point: ReplayPoint | undefined, e: RecordedEvent): boolean {
  if (!point) return false;
  if ('position' in point) return e.position > point.position;
  return new Date(e.recordedAt).getTime() > point.time.getTime();
}

/**
 * Replays the log from position 0 into a fresh ledger, up to `to` (inclusive) when given.
 * @example const ledger = await replayLedger(store.streamAll(), { time: new Date('2026-03-01') });
 */
export async function replayLedger(events: AsyncIterable<RecordedEvent>, to?: ReplayPoint): Promise<Ledger> {
  const l = emptyLedger();
  for await (const e of events) {
    // The log is in append order and recorded_at is taken under the append lock, so the first
    // event past the point ends the replay.
    if (isAfter(to, e)) break;
    applyToLedger(l, e);
  }
  return l;
}
