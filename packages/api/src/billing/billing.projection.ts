/**
 * Billing's read models, moved inline with every append: `billing_payments` (one row per payment,
 * the pending list, the revenue sum, the tx-hash guard) and `billing_subscriptions` (the current
 * subscription per member), plus the users' `membership_status`/`subscription_status` columns
 * (through identity's `setMembership`: identity owns the table, billing the values).
 *
 * Two unique indexes make the money rules race-proof: a transaction hash belongs to one payment
 * ever, and a member has at most one submitted (pending) payment per plan. A violating append is
 * rolled back whole and surfaces as `UniqueViolation` (see `uniqueRule`).
 */

import type { Queryable } from '../db/types.js';
import { UniqueViolation } from '../db/types.js';
import { type Counted, countsSchema, moveCount } from '../eventstore/counts.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { setMembership } from '../identity/index.js';
import { erasedLabel } from '../shredding/index.js';
import { PAYMENT_EVENT_TYPES, type PaymentEvent } from './payment.decider.js';
import { grantsAccess, SUBSCRIPTION_EVENT_TYPES, type SubscriptionEvent, type SubscriptionStatus } from './subscription.decider.js';

export const BILLING_SCHEMA = `
CREATE TABLE IF NOT EXISTS billing_payments (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  user_email TEXT,
  plan_type TEXT NOT NULL,
  amount_sats BIGINT NOT NULL,
  status TEXT NOT NULL,
  address TEXT,
  address_index INTEGER,
  bip21_uri TEXT,
  tx_hash TEXT,
  requested_at TEXT,
  expires_at TEXT,
  submitted_at TEXT,
  verified_at TEXT,
  verified_by TEXT,
  rejected_at TEXT,
  rejected_by TEXT,
  reject_reason TEXT,
  subscription_id TEXT,
  applied_at TEXT,
  custom_request_id TEXT,
  chain_status TEXT,
  chain_txid TEXT,
  chain_output_index INTEGER,
  chain_received_sats BIGINT,
  chain_confirmations INTEGER,
  chain_block_height INTEGER,
  chain_block_hash TEXT,
  chain_checked_at TEXT,
  chain_flagged_at TEXT,
  renewal_subscription_id TEXT,
  renewal_period_end TEXT,
  renewal_reminders TEXT
);
CREATE INDEX IF NOT EXISTS billing_payments_renewal ON billing_payments (renewal_subscription_id, renewal_period_end);
CREATE INDEX IF NOT EXISTS billing_payments_flagged ON billing_payments (chain_flagged_at);
CREATE UNIQUE INDEX IF NOT EXISTS billing_payments_tx_hash ON billing_payments (tx_hash);
CREATE UNIQUE INDEX IF NOT EXISTS billing_payments_one_pending ON billing_payments (user_id, plan_type) WHERE status = 'submitted' AND plan_type <> 'custom';
CREATE INDEX IF NOT EXISTS billing_payments_status ON billing_payments (status, submitted_at, id);
CREATE INDEX IF NOT EXISTS billing_payments_user ON billing_payments (user_id, plan_type, status);
CREATE TABLE IF NOT EXISTS billing_subscriptions (
  user_id TEXT PRIMARY KEY,
  subscription_id TEXT NOT NULL,
  plan_type TEXT NOT NULL,
  status TEXT NOT NULL,
  cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
  current_period_start TEXT NOT NULL,
  current_period_end TEXT NOT NULL,
  grace_until TEXT,
  last_payment_id TEXT NOT NULL,
  amount_sats BIGINT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS billing_subscriptions_due ON billing_subscriptions (status, current_period_end);
CREATE INDEX IF NOT EXISTS billing_subscriptions_id ON billing_subscriptions (subscription_id);
`;

/** Which billing rule a unique violation broke, if any. */
export function uniqueRule(err: unknown): 'tx_hash' | 'one_pending' | undefined {
  if (!(err instanceof UniqueViolation)) return undefined;
  const where = `${err.constraint} ${err.message}`;
  if (where.includes('tx_hash')) return 'tx_hash';
  if (where.includes('one_pending') || where.includes('billing_payments.user_id')) return 'one_pending';
  return undefined;
}

async function applyPayment(tx: Queryable, event: PaymentEvent): Promise<void> {
  switch (event.type) {
    case 'PaymentRequested': {
      const d = event.data;
      await tx.run(
        `INSERT INTO billing_payments (id, user_id, plan_type, amount_sats, status, address, address_index, bip21_uri, requested_at, expires_at,
           custom_request_id, renewal_subscription_id, renewal_period_end, renewal_reminders)
         VALUES (?, ?, ?, ?, 'requested', ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
        [
          d.paymentId,
          d.userId,
          d.planType,
          d.amountSats,
          d.address,
          d.addressIndex ?? null,
          d.bip21Uri,
          d.requestedAt,
          d.expiresAt,
          d.customRequestId ?? null,
          d.renewal?.subscriptionId ?? null,
          d.renewal?.periodEnd ?? null,
        ],
      );
      return;
    }
    case 'PaymentSubmitted': {
      const d = event.data;
      await tx.run(
        `INSERT INTO billing_payments (id, user_id, user_email, plan_type, amount_sats, status, address, tx_hash, submitted_at, custom_request_id)
         VALUES (?, ?, ?, ?, ?, 'submitted', ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET user_email = excluded.user_email, plan_type = excluded.plan_type,
           amount_sats = excluded.amount_sats, status = 'submitted', tx_hash = excluded.tx_hash, submitted_at = excluded.submitted_at,
           custom_request_id = COALESCE(excluded.custom_request_id, billing_payments.custom_request_id)`,
        [
          d.paymentId,
          d.userId,
          d.userEmail,
          d.planType,
          d.amountSats,
          d.address ?? null,
          d.txHash ?? null,
          d.submittedAt,
          d.customRequestId ?? null,
        ],
      );
      return;
    }
    case 'PaymentVerified':
      await tx.run(`UPDATE billing_payments SET status = 'verified', verified_at = ?, verified_by = ? WHERE id = ?`, [
        event.data.verifiedAt,
        event.data.verifiedBy,
        event.data.paymentId,
      ]);
      return;
    case 'PaymentRejected':
      await tx.run(`UPDATE billing_payments SET status = 'rejected', rejected_at = ?, rejected_by = ?, reject_reason = ? WHERE id = ?`, [
        event.data.rejectedAt,
        event.data.rejectedBy,
        event.data.reason,
        event.data.paymentId,
      ]);
      return;
    case 'PaymentChainChecked': {
      const d = event.data;
      await tx.run(
        `UPDATE billing_payments SET chain_status = ?, chain_txid = ?, chain_output_index = ?, chain_received_sats = ?, chain_confirmations = ?,
           chain_block_height = ?, chain_block_hash = ?, chain_checked_at = ? WHERE id = ?`,
        [d.status, d.txid, d.outputIndex, d.receivedSats, d.confirmations, d.blockHeight, d.blockHash, d.checkedAt, d.paymentId],
      );
      return;
    }
    case 'PaymentRenewalReminded':
      await tx.run(`UPDATE billing_payments SET renewal_reminders = COALESCE(renewal_reminders, '') || ? WHERE id = ?`, [
        `${event.data.kind};`,
        event.data.paymentId,
      ]);
      return;
    case 'PaymentLeftChain':
      await tx.run('UPDATE billing_payments SET chain_flagged_at = ? WHERE id = ?', [event.data.flaggedAt, event.data.paymentId]);
      return;
    case 'PaymentCanceled':
      // Closed by the member's erasure: out of the pending list and the pending counter, never revenue.
      await tx.run(`UPDATE billing_payments SET status = 'canceled' WHERE id = ?`, [event.data.paymentId]);
      return;
  }
}

const STATUS_AFTER: Partial<Record<SubscriptionEvent['type'], SubscriptionStatus>> = {
  SubscriptionActivated: 'active',
  SubscriptionRenewed: 'active',
  SubscriptionPastDue: 'past_due',
  SubscriptionUnpaid: 'unpaid',
  SubscriptionCanceled: 'canceled',
};

/**
 * Writes the event's change and answers the member's subscription group before and after it: the
 * write reads the previous row anyway, and always leaves a row with the status it computed.
 */
async function applySubscription(
  tx: Queryable,
  event: SubscriptionEvent,
  at: string,
): Promise<{ before: Counted | undefined; after: Counted }> {
  const d = event.data;
  const prev = await tx.get<{ status: SubscriptionStatus; cancel_at_period_end: number; grace_until: string | null }>(
    'SELECT status, cancel_at_period_end, grace_until FROM billing_subscriptions WHERE user_id = ?',
    [d.userId],
  );
  const status = STATUS_AFTER[event.type] ?? prev?.status ?? 'active';
  let cancel = Number(prev?.cancel_at_period_end ?? 0);
  if (event.type === 'SubscriptionCancelRequested') cancel = 1;
  if (['SubscriptionActivated', 'SubscriptionRenewed', 'SubscriptionReactivated', 'SubscriptionCanceled'].includes(event.type)) cancel = 0;
  const grace = event.type === 'SubscriptionPastDue' ? event.data.graceUntil : status === 'past_due' ? (prev?.grace_until ?? null) : null;
  await tx.run(
    `INSERT INTO billing_subscriptions (user_id, subscription_id, plan_type, status, cancel_at_period_end, current_period_start,
       current_period_end, grace_until, last_payment_id, amount_sats, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET subscription_id = excluded.subscription_id, plan_type = excluded.plan_type,
       status = excluded.status, cancel_at_period_end = excluded.cancel_at_period_end,
       current_period_start = excluded.current_period_start, current_period_end = excluded.current_period_end,
       grace_until = excluded.grace_until, last_payment_id = excluded.last_payment_id, amount_sats = excluded.amount_sats,
       updated_at = excluded.updated_at`,
    [d.userId, d.subscriptionId, d.planType, status, cancel, d.periodStart, d.periodEnd, grace, d.paymentId, d.amountSats, at],
  );
  if (event.type === 'SubscriptionActivated' || event.type === 'SubscriptionRenewed')
    await tx.run('UPDATE billing_payments SET subscription_id = ?, applied_at = ? WHERE id = ?', [d.subscriptionId, at, d.paymentId]);
  await setMembership(tx, d.userId, { membershipStatus: grantsAccess(status) ? 'active' : 'inactive', subscriptionStatus: status });
  return { before: prev ? subscriptionGroup(prev.status) : undefined, after: subscriptionGroup(status) };
}

/** Counters for the admin dashboard: `payment:<status>` (n, satoshis) and `subscription:<status>`. */
export const BILLING_COUNTS = 'billing_counts';

async function paymentGroup(tx: Queryable, id: string) {
  const row = await tx.get<{ status: string; amount_sats: number | string }>(
    'SELECT status, amount_sats FROM billing_payments WHERE id = ?',
    [id],
  );
  return row ? { key: `payment:${row.status}`, amount: Number(row.amount_sats) } : undefined;
}

const subscriptionGroup = (status: string): Counted => ({ key: `subscription:${status}` });

const PAYMENT_TYPES = new Set<string>(PAYMENT_EVENT_TYPES);
const SUBSCRIPTION_TYPES = new Set<string>(SUBSCRIPTION_EVENT_TYPES);

export const eventTime = (event: RecordedEvent): string => event.metadata.at ?? event.recordedAt;

export const billingProjection: Projection = {
  name: 'billing',
  // 2: an erased member's payments show `erased member <short id>` (MemberErased).
  // 3: `billing_counts`, the dashboard's counters kept beside the rows.
  // 4: payments for custom video requests (`plan_type` 'custom', `custom_request_id`; several may be pending).
  // 5: what the chain shows (`chain_*`, PaymentChainChecked) and verified payments flagged when their transaction left it.
  // 6: renewal requests (`renewal_*`: the subscription and period end they renew, the reminders sent).
  version: 6,
  tables: ['billing_payments', 'billing_subscriptions', BILLING_COUNTS],
  schema: BILLING_SCHEMA + countsSchema(BILLING_COUNTS),
  async apply(tx, event) {
    if (event.type === 'MemberErased') {
      // Payments stay for accounting; only the address they were submitted with goes.
      const userId = String(event.data.userId);
      await tx.run('UPDATE billing_payments SET user_email = ? WHERE user_id = ? AND user_email IS NOT NULL', [
        erasedLabel(userId),
        userId,
      ]);
    } else if (PAYMENT_TYPES.has(event.type)) {
      // The dashboard's counters (payments by status, with their satoshis) move with the row.
      // A request creates the row (its INSERT fails if the row is there), so it was in no group before.
      const id = (event.data as { paymentId: string }).paymentId;
      const before = event.type === 'PaymentRequested' ? undefined : await paymentGroup(tx, id);
      await applyPayment(tx, event as unknown as PaymentEvent);
      await moveCount(tx, BILLING_COUNTS, before, await paymentGroup(tx, id));
    } else if (SUBSCRIPTION_TYPES.has(event.type)) {
      const { before, after } = await applySubscription(tx, event as unknown as SubscriptionEvent, eventTime(event));
      await moveCount(tx, BILLING_COUNTS, before, after);
    }
  },
};
