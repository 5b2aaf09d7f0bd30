/**
 * Row-by-row comparison of billing's read models (`billing_payments`, `billing_subscriptions`)
 * with the auditor's ledger. Tables are paged by key; only the ids seen are remembered.
 */
import type { Db } from '../db/types.js';
import type { Difference } from './difference.js';
import type { Ledger, LedgerPayment, LedgerSubscription } from './ledger.js';

const PAGE = 1000;

async function* pagesOf<T extends Record<string, unknown>>(db: Db, table: string, key: string): AsyncGenerator<T> {
  let after = '';
  for (;;) {
    const rows = await db.all<T>(`SELECT * FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ${PAGE}`, [after]);
    for (const r of rows) yield r;
    if (rows.length < PAGE) return;
    after = String((rows[rows.length - 1] as T)[key]);
  }
}

function fieldDiffs(subject: string, check: string, pairs: [string, unknown, unknown][]): Difference[] {
  const out: Difference[] = [];
  for (const [field, expected, actual] of pairs) {
    const norm = (v: unknown) => (v === undefined ? null : typeof v === 'bigint' ? Number(v) : v);
    if (norm(expected) !== norm(actual))
      out.push({ check, subject, message: `${field} differs`, expected: norm(expected), actual: norm(actual) });
  }
  return out;
}

export async function comparePaymentRows(db: Db, ledger: Ledger): Promise<Difference[]> {
  const out: Difference[] = [];
  const seen = new Set<string>();
  for await (const row of pagesOf<Record<string, unknown>>(db, 'billing_payments', 'id')) {
    const id = String(row.id);
    const p: LedgerPayment | undefined = ledger.payments.get(id);
    if (!p) {
      out.push({ check: 'payment-row', subject: `payment ${id}`, message: 'is in the read model but not in the events' });
      continue;
    }
    seen.add(id);
    out.push(
      ...fieldDiffs(`payment ${id}`, 'payment-row', [
        ['status', p.status, row.status],
        ['user_id', p.userId, row.user_id],
        ['plan_type', p.planType, row.plan_type],
        ['amount_sats', p.amountSats, Number(row.amount_sats)],
        ['tx_hash', p.txHash ?? null, row.tx_hash ?? null],
      ]),
    );
  }
  for (const id of ledger.payments.keys())
    if (!seen.has(id))
      out.push({ check: 'payment-row', subject: `payment ${id}`, message: 'is in the events but missing from the read model' });
  return out;
}

export async function compareSubscriptionRows(db: Db, ledger: Ledger): Promise<Difference[]> {
  const out: Difference[] = [];
  const seen = new Set<string>();
  for await (const row of pagesOf<Record<string, unknown>>(db, 'billing_subscriptions', 'user_id')) {
    const userId = String(row.user_id);
    const s: LedgerSubscription | undefined = ledger.subscriptions.get(userId);
    const subject = `subscription of member ${ledger.emails.get(userId) ?? userId}`;
    if (!s) {
      out.push({ check: 'subscription-row', subject, message: 'is in the read model but not in the events' });
      continue;
    }
    seen.add(userId);
    out.push(
      ...fieldDiffs(subject, 'subscription-row', [
        ['subscription_id', s.subscriptionId, row.subscription_id],
        ['status', s.status, row.status],
        ['plan_type', s.planType, row.plan_type],
        ['current_period_start', s.periodStart, row.current_period_start],
        ['current_period_end', s.periodEnd, row.current_period_end],
        ['cancel_at_period_end', s.cancelAtPeriodEnd ? 1 : 0, Number(row.cancel_at_period_end)],
        ['last_payment_id', s.paymentId, row.last_payment_id],
        ['amount_sats', s.amountSats, Number(row.amount_sats)],
      ]),
    );
  }
  for (const userId of ledger.subscriptions.keys())
    if (!seen.has(userId))
      out.push({
        check: 'subscription-row',
        subject: `subscription of member ${ledger.emails.get(userId) ?? userId}`,
        message: 'is missing from the read model',
      });
  return out;
}
