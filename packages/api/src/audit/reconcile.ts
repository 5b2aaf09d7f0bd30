/**
 * Reconciliation: replays every event from position 0 into a fresh ledger (ledger.ts) and checks
 *  1. every subscription that grants access is backed by verified payments of its member covering
 *     its whole period (periodStart advanced by each applied payment's plan = periodEnd);
 *  2. no payment is applied twice and no transaction hash is used by two payments; every custom video
 *     request marked paid is backed by a verified payment of its member, for it, of the same amount;
 *  3. the live read models agree: revenue = sum of verified payments, pending payments and active
 *     subscribers counters, every billing_payments and billing_subscriptions row, and each member's
 *     subscription columns in users (see liveReadModels.ts and billingRows.ts).
 * Differences are data, not exceptions: the caller prints them and exits non-zero.
 */
import { type PlanType, periodEnd } from '../billing/index.js';
import type { Db } from '../db/types.js';
import type { EventStore } from '../eventstore/types.js';
import type { Difference, ReplayedTotals } from './difference.js';
import { grantsAccess, type Ledger, replayLedger } from './ledger.js';
import { compareLiveReadModels } from './liveReadModels.js';

export type { Difference, ReplayedTotals } from './difference.js';

export interface ReconcileReport {
  ok: boolean;
  events: number;
  position: number;
  replayed: ReplayedTotals;
  differences: Difference[];
}

export function replayedTotals(l: Ledger): ReplayedTotals {
  let revenueSats = 0;
  let verifiedPayments = 0;
  let pendingPayments = 0;
  for (const p of l.payments.values()) {
    if (p.status === 'verified') {
      revenueSats += p.amountSats;
      verifiedPayments += 1;
    } else if (p.status === 'submitted') pendingPayments += 1;
  }
  let activeSubscribers = 0;
  for (const s of l.subscriptions.values()) if (grantsAccess(s)) activeSubscribers += 1;
  return { revenueSats, verifiedPayments, pendingPayments, activeSubscribers, subscriptions: l.subscriptions.size };
}

/** Checks 1 and 2: what the events themselves must satisfy. */
export function checkLedger(l: Ledger): Difference[] {
  const out: Difference[] = [];
  const appliedTo = new Map<string, string>();
  for (const s of l.subscriptions.values()) {
    const subject = `subscription ${s.subscriptionId} (member ${l.emails.get(s.userId) ?? s.userId})`;
    let end = s.periodStart;
    for (const a of s.applied) {
      const other = appliedTo.get(a.paymentId);
      if (other && other !== s.subscriptionId)
        out.push({ check: 'payment-applied-twice', subject, message: `payment ${a.paymentId} also paid for subscription ${other}` });
      appliedTo.set(a.paymentId, s.subscriptionId);
      end = periodEnd(end, a.planType as PlanType);
      if (!grantsAccess(s)) continue;
      const p = l.payments.get(a.paymentId);
      if (p?.status !== 'verified')
        out.push({
          check: 'subscription-backed-by-verified-payment',
          subject,
          message: `is ${s.status} but payment ${a.paymentId} is ${p ? p.status : 'not in the log'}`,
        });
      else if (p.userId !== s.userId)
        out.push({
          check: 'subscription-backed-by-verified-payment',
          subject,
          message: `payment ${a.paymentId} belongs to member ${p.userId}`,
        });
      else if (p.planType !== a.planType)
        out.push({
          check: 'subscription-backed-by-verified-payment',
          subject,
          message: `payment ${a.paymentId} paid for ${p.planType}, not ${a.planType}`,
        });
    }
    if (grantsAccess(s) && new Date(end).getTime() !== new Date(s.periodEnd).getTime())
      out.push({
        check: 'period-covered-by-payments',
        subject,
        message: 'the verified payments do not cover the period exactly',
        expected: end,
        actual: s.periodEnd,
      });
  }
  for (const r of l.paidRequests.values()) {
    const p = l.payments.get(r.paymentId);
    const subject = `custom request ${r.requestId} (member ${l.emails.get(r.userId) ?? r.userId})`;
    const problem =
      p?.status !== 'verified'
        ? `is paid but payment ${r.paymentId} is ${p ? p.status : 'not in the log'}`
        : p.userId !== r.userId
          ? `payment ${r.paymentId} belongs to member ${p.userId}`
          : p.customRequestId !== r.requestId
            ? `payment ${r.paymentId} pays for ${p.customRequestId ? `request ${p.customRequestId}` : `the ${p.planType} plan`}`
            : p.amountSats !== r.amountSats
              ? `payment ${r.paymentId} is ${p.amountSats} sats, the request ${r.amountSats}`
              : undefined;
    if (problem) out.push({ check: 'custom-request-backed-by-verified-payment', subject, message: problem });
  }
  const byHash = new Map<string, string>();
  for (const p of l.payments.values()) {
    // Billing's rule: a transaction hash belongs to one payment ever (a rejected one included).
    if (!p.txHash) continue;
    const first = byHash.get(p.txHash);
    if (first)
      out.push({ check: 'tx-hash-used-once', subject: `transaction ${p.txHash}`, message: `used by payments ${first} and ${p.paymentId}` });
    else byHash.set(p.txHash, p.paymentId);
  }
  return out;
}

/**
 * @example const report = await reconcile(ctx.db, ctx.store); if (!report.ok) process.exitCode = 1;
 */
export async function reconcile(db: Db, store: EventStore, opts: { maxDifferences?: number } = {}): Promise<ReconcileReport> {
  const ledger = await replayLedger(store.streamAll({ batchSize: 1000 }));
  const replayed = replayedTotals(ledger);
  const differences = [...checkLedger(ledger), ...(await compareLiveReadModels(db, ledger, replayed))];
  const max = opts.maxDifferences ?? 1000;
  const capped = differences.length > max ? [...differences.slice(0, max), truncated(differences.length - max)] : differences;
  return { ok: differences.length === 0, events: ledger.events, position: ledger.position, replayed, differences: capped };
}

function truncated(n: number): Difference {
  return { check: 'truncated', subject: 'report', message: `${n} more differences not shown` };
}

export function describeReconcile(r: ReconcileReport): string[] {
  const t = r.replayed;
  const lines = [
    `Replayed ${r.events} events (to position ${r.position}): ${t.verifiedPayments} verified payments, revenue ${t.revenueSats} sats, ` +
      `${t.pendingPayments} pending, ${t.activeSubscribers} active subscribers`,
  ];
  for (const d of r.differences) {
    const detail =
      d.expected !== undefined || d.actual !== undefined
        ? ` (events say ${JSON.stringify(d.expected)}, read model has ${JSON.stringify(d.actual)})`
        : '';
    lines.push(`DIFFERENCE [${d.check}] ${d.subject}: ${d.message}${detail}`);
  }
  lines.push(r.ok ? 'OK: read models match the events' : `FAILED: ${r.differences.length} difference(s)`);
  return lines;
}
