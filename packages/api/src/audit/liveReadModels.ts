/**
 * The live side of reconciliation: billing's counters (summed over the rows, and the precomputed ones `billingStats` reads), its payment and subscription
 * rows (billingRows.ts) and each member's subscription columns in the `users` read model, compared
 * with the auditor's replayed ledger.
 * The users table is paged by id so a large member base is never loaded at once.
 */
import { billingStats, billingStatsFromRows } from '../billing/index.js';
import type { Db } from '../db/types.js';
import { usersAfter } from '../identity/index.js';
import { comparePaymentRows, compareSubscriptionRows } from './billingRows.js';
import type { Difference, ReplayedTotals } from './difference.js';
import { grantsAccess, type Ledger } from './ledger.js';

interface UserSubscriptionRow {
  id: string;
  email: string;
  membership_status: string;
  subscription_status: string | null;
}

export async function compareLiveReadModels(db: Db, ledger: Ledger, replayed: ReplayedTotals): Promise<Difference[]> {
  const out: Difference[] = [];
  // Both the figures summed over the rows and the precomputed counters the dashboard reads.
  for (const [check, stats] of [
    ['counter', await billingStatsFromRows(db)],
    ['precomputed-counter', await billingStats(db)],
  ] as const) {
    const counter = (name: string, expected: number, actual: number) => {
      if (expected !== actual) out.push({ check, subject: name, message: `${name} differs`, expected, actual });
    };
    counter('totalRevenueSats', replayed.revenueSats, stats.totalRevenueSats);
    counter('pendingPayments', replayed.pendingPayments, stats.pendingPayments);
    counter('activeSubscribers', replayed.activeSubscribers, stats.activeSubscribers);
  }
  out.push(...(await comparePaymentRows(db, ledger)));
  out.push(...(await compareSubscriptionRows(db, ledger)));
  out.push(...(await compareMembers(db, ledger)));
  return out;
}

async function compareMembers(db: Db, ledger: Ledger): Promise<Difference[]> {
  const out: Difference[] = [];
  const seen = new Set<string>();
  let after = '';
  for (;;) {
    const rows: UserSubscriptionRow[] = await usersAfter(db, after, 1000);
    for (const row of rows) {
      const sub = ledger.subscriptions.get(row.id);
      if (sub) seen.add(row.id);
      const expectedStatus = sub?.status ?? null;
      const expectedMembership = grantsAccess(sub) ? 'active' : 'inactive';
      const subject = `member ${row.email}`;
      if ((row.subscription_status ?? null) !== expectedStatus)
        out.push({
          check: 'member-subscription',
          subject,
          message: 'subscription status differs',
          expected: expectedStatus,
          actual: row.subscription_status,
        });
      if (row.membership_status !== expectedMembership)
        out.push({
          check: 'member-membership',
          subject,
          message: 'membership status differs',
          expected: expectedMembership,
          actual: row.membership_status,
        });
    }
    if (rows.length < 1000) break;
    after = (rows[rows.length - 1] as UserSubscriptionRow).id;
  }
  for (const [userId, sub] of ledger.subscriptions) {
    if (!seen.has(userId))
      out.push({
        check: 'member-missing',
        subject: `member ${ledger.emails.get(userId) ?? userId}`,
        message: `has a ${sub.status} subscription in the events but no users row`,
      });
  }
  return out;
}
