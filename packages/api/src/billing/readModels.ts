/** Queries over billing's read models and the shapes the API answers with (section 3). */

import type {
  chainCheckSchema,
  memberPendingPaymentSchema,
  paymentRequestSchema,
  pendingPaymentSchema,
  submittedPaymentSchema,
  subscriptionSchema,
} from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import type { SiteConfig } from '../config/site.js';
import { allIn } from '../db/inChunks.js';
import type { Queryable } from '../db/types.js';
import { usersByIds } from '../identity/index.js';
import { type Page, pageOf } from '../shared/paging.js';
import { chainShowsPaid } from './payment.decider.js';
import { CUSTOM_REQUEST_PAYMENT, type PaymentKind, type PlanType, planOf } from './plans.js';
import type { SubscriptionStatus } from './subscription.decider.js';

export interface PaymentRow {
  id: string;
  user_id: string;
  user_email: string | null;
  plan_type: PaymentKind;
  amount_sats: number;
  status: 'requested' | 'submitted' | 'verified' | 'rejected' | 'canceled';
  address: string | null;
  address_index: number | null;
  bip21_uri: string | null;
  tx_hash: string | null;
  requested_at: string | null;
  expires_at: string | null;
  submitted_at: string | null;
  verified_at: string | null;
  rejected_at: string | null;
  reject_reason: string | null;
  subscription_id: string | null;
  applied_at: string | null;
  custom_request_id: string | null;
  chain_status: string | null;
  chain_txid: string | null;
  chain_output_index: number | null;
  chain_received_sats: number | string | null;
  chain_confirmations: number | null;
  chain_block_height: number | null;
  chain_block_hash: string | null;
  chain_checked_at: string | null;
  chain_flagged_at: string | null;
  renewal_subscription_id: string | null;
  renewal_period_end: string | null;
  /** The reminders sent, each followed by ';' (e.g. 'day_before;'). */
  renewal_reminders: string | null;
}

export interface SubscriptionRow {
  user_id: string;
  subscription_id: string;
  plan_type: PlanType;
  status: SubscriptionStatus;
  cancel_at_period_end: number;
  current_period_start: string;
  current_period_end: string;
  grace_until: string | null;
  last_payment_id: string;
  amount_sats: number;
}

export const paymentById = (db: Queryable, id: string) => db.get<PaymentRow>('SELECT * FROM billing_payments WHERE id = ?', [id]);

export const paymentByTxHash = (db: Queryable, txHash: string) =>
  db.get<PaymentRow>('SELECT * FROM billing_payments WHERE tx_hash = ?', [txHash]);

/** The newest unsubmitted request of a member for a plan at a price (open ones only when `openAt` is given). */
export const latestRequest = (db: Queryable, userId: string, planType: PlanType, amountSats: number, openAt?: string) =>
  db.get<PaymentRow>(
    `SELECT * FROM billing_payments WHERE user_id = ? AND plan_type = ? AND amount_sats = ? AND status = 'requested'
       ${openAt ? 'AND expires_at > ?' : ''} ORDER BY requested_at DESC LIMIT 1`,
    openAt ? [userId, planType, amountSats, openAt] : [userId, planType, amountSats],
  );

export const pendingPaymentOf = (db: Queryable, userId: string, planType: PlanType) =>
  db.get<PaymentRow>(`SELECT * FROM billing_payments WHERE user_id = ? AND plan_type = ? AND status = 'submitted'`, [userId, planType]);

/** The rows of members identity has not erased (its read port; an erased account keeps its row with `erased_at`). */
export async function withoutErased<T extends { user_id: string }>(db: Queryable, rows: T[]): Promise<T[]> {
  const members = await usersByIds(
    db,
    rows.map((r) => r.user_id),
  );
  return rows.filter((r) => !members.get(r.user_id)?.erased_at);
}

/** Verified payments whose activation was never appended (a crash between the two appends). */
/** An erased member's are left out: nothing activates a subscription for an erased account (billing/erasure.ts). */
export const unappliedVerifiedPayments = async (db: Queryable) =>
  withoutErased(
    db,
    await db.all<PaymentRow>(`SELECT * FROM billing_payments WHERE status = 'verified' AND applied_at IS NULL AND plan_type <> 'custom'`),
  );

/** Members whose subscription is past its period end (active) or grace period (past due) at `now`. */
export const subscriptionsDue = (db: Queryable, now: string) =>
  db.all<{ user_id: string }>(
    `SELECT user_id FROM billing_subscriptions
     WHERE (status = 'active' AND current_period_end <= ?) OR (status = 'past_due' AND grace_until <= ?)`,
    [now, now],
  );

/**
 * Subscriptions inside the renewal notice window (`dueBy`: now plus the notice days) that renew —
 * active or past due, not set to cancel — with no renewal request for their current period that is
 * open or paid (a canceled or expired one does not count: reactivating opens a new one).
 */
export const subscriptionsToRenew = async (db: Queryable, dueBy: string, now: string) =>
  withoutErased(
    db,
    await db.all<SubscriptionRow>(
      `SELECT s.* FROM billing_subscriptions s
     WHERE s.status IN ('active', 'past_due') AND s.cancel_at_period_end = 0 AND s.current_period_end <= ?
       AND NOT EXISTS (SELECT 1 FROM billing_payments p WHERE p.renewal_subscription_id = s.subscription_id
         AND p.renewal_period_end = s.current_period_end
         AND (p.status IN ('submitted', 'verified') OR (p.status = 'requested' AND p.expires_at > ?)))`,
      [dueBy, now],
    ),
  );

/** Open (unpaid, unexpired) renewal requests, with their subscription's status: the reminders' candidates. */
export const openRenewals = (db: Queryable, now: string) =>
  db.all<PaymentRow & { subscription_status: string }>(
    `SELECT p.*, s.status AS subscription_status FROM billing_payments p
       JOIN billing_subscriptions s ON s.subscription_id = p.renewal_subscription_id
     WHERE p.status = 'requested' AND p.expires_at > ? AND p.renewal_subscription_id IS NOT NULL`,
    [now],
  );

/** The open or submitted renewal request of a subscription's current period, if any. */
export const renewalOf = (db: Queryable, sub: Pick<SubscriptionRow, 'subscription_id' | 'current_period_end'>, now: string) =>
  db.get<PaymentRow>(
    `SELECT * FROM billing_payments WHERE renewal_subscription_id = ? AND renewal_period_end = ?
       AND (status = 'submitted' OR (status = 'requested' AND expires_at > ?)) ORDER BY requested_at DESC LIMIT 1`,
    [sub.subscription_id, sub.current_period_end, now],
  );

export const subscriptionOf = (db: Queryable, userId: string) =>
  db.get<SubscriptionRow>('SELECT * FROM billing_subscriptions WHERE user_id = ?', [userId]);

/** The subscriptions of `userIds` by member, in one query (a member without one is absent). */
export async function subscriptionsOf(db: Queryable, userIds: readonly string[]): Promise<Map<string, SubscriptionRow>> {
  const rows = await allIn<SubscriptionRow>(db, userIds, (marks) => `SELECT * FROM billing_subscriptions WHERE user_id IN (${marks})`);
  return new Map(rows.map((r) => [r.user_id, r]));
}

/** A plan payment's row (custom request payments are answered by the custom requests' own routes). */
const planTypeOf = (row: PaymentRow): PlanType => {
  if (row.plan_type === CUSTOM_REQUEST_PAYMENT) throw new Error(`payment ${row.id} pays for a custom request, not a plan`);
  return row.plan_type;
};

export function paymentRequestDto(site: SiteConfig, row: PaymentRow): z.infer<typeof paymentRequestSchema> {
  const plan = planOf(site, planTypeOf(row));
  return {
    paymentId: row.id,
    planType: planTypeOf(row),
    planName: plan.name,
    status: row.status,
    address: row.address,
    btcAmount: satsToBtc(row.amount_sats),
    amountSats: Number(row.amount_sats),
    usdAmount: plan.usdPrice,
    bip21Uri: row.bip21_uri,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
  };
}

/** The answer to a member's "I've sent payment". */
export function submittedPaymentDto(site: SiteConfig, row: PaymentRow): z.infer<typeof submittedPaymentSchema> {
  return {
    paymentId: row.id,
    status: 'pending' as const,
    planType: planTypeOf(row),
    btcAmount: planOf(site, planTypeOf(row)).btcAmount,
    submittedDate: row.submitted_at,
    ...(row.tx_hash ? { transactionHash: row.tx_hash } : {}),
    ...(row.address ? { address: row.address } : {}),
  };
}

/** What the chain shows for a payment; `unchecked` without a node, or before the node's first look. */
export function chainCheckDto(row: PaymentRow, nodeConfigured: boolean): z.infer<typeof chainCheckSchema> {
  if (!nodeConfigured || !row.chain_status)
    return { status: 'unchecked', txid: null, receivedSats: 0, confirmations: 0, blockHeight: null, blockHash: null, checkedAt: null };
  return {
    status: row.chain_status as z.infer<typeof chainCheckSchema>['status'],
    txid: row.chain_txid,
    receivedSats: Number(row.chain_received_sats ?? 0),
    confirmations: Number(row.chain_confirmations ?? 0),
    blockHeight: row.chain_block_height === null ? null : Number(row.chain_block_height),
    blockHash: row.chain_block_hash,
    checkedAt: row.chain_checked_at,
  };
}

/** Pending payment (admin view, section 3); `transactionHash` is left out when the member gave none and the chain showed none. */
export function pendingPaymentDto(site: SiteConfig, row: PaymentRow, nodeConfigured = false): z.infer<typeof pendingPaymentSchema> {
  return {
    id: row.id,
    userId: row.user_id,
    userEmail: row.user_email ?? '',
    planType: row.plan_type,
    ...(row.custom_request_id ? { customRequestId: row.custom_request_id } : {}),
    btcAmount: satsToBtc(row.amount_sats),
    amountSats: Number(row.amount_sats),
    submittedDate: row.submitted_at ?? '',
    ...(row.address ? { address: row.address } : {}),
    ...(row.tx_hash ? { transactionHash: row.tx_hash, explorerUrl: site.bitcoin.explorerTxUrl.replace('{txid}', row.tx_hash) } : {}),
    chain: chainCheckDto(row, nodeConfigured),
    ...(row.chain_flagged_at ? { flaggedAt: row.chain_flagged_at } : {}),
  };
}

/**
 * One page of submitted payments, oldest first: a keyset read of the `billing_payments_status
 * (status, submitted_at, id)` index (`limit + 1` rows, so it knows whether more follow).
 */
export async function pendingPayments(db: Queryable, site: SiteConfig, page: Page, nodeConfigured = false) {
  const [at, id] = page.after ?? ['', ''];
  const rows = await db.all<PaymentRow>(
    `SELECT * FROM billing_payments WHERE status = 'submitted' AND (submitted_at > ? OR (submitted_at = ? AND id > ?))
     ORDER BY submitted_at, id LIMIT ?`,
    [at, at, id, page.limit + 1],
  );
  const { rows: pageRows, nextCursor } = pageOf(rows, page.limit, (r) => [r.submitted_at ?? '', r.id]);
  return { payments: pageRows.map((r) => pendingPaymentDto(site, r, nodeConfigured)), nextCursor };
}

/**
 * A member's payments waiting for an admin (oldest first), with what the chain shows: `received`
 * once a transaction paying the request was seen (a payment nobody submitted is here only then).
 */
export async function memberPendingPayments(
  db: Queryable,
  userId: string,
  nodeConfigured: boolean,
): Promise<z.infer<typeof memberPendingPaymentSchema>[]> {
  const rows = await db.all<PaymentRow>(
    `SELECT * FROM billing_payments WHERE user_id = ? AND status = 'submitted' ORDER BY submitted_at, id`,
    [userId],
  );
  return rows.map((r) => {
    const chain = chainCheckDto(r, nodeConfigured);
    const { status } = chain;
    return {
      paymentId: r.id,
      planType: r.plan_type,
      btcAmount: satsToBtc(r.amount_sats),
      submittedDate: r.submitted_at ?? '',
      ...(r.tx_hash ? { transactionHash: r.tx_hash } : {}),
      received: chainShowsPaid(status) ? { btcAmount: satsToBtc(chain.receivedSats), confirmations: chain.confirmations, status } : null,
    };
  });
}

/** Verified payments whose transaction left the chain (newest flag first): the admin judges them; nothing is revoked. */
export async function flaggedPayments(db: Queryable, site: SiteConfig, nodeConfigured: boolean) {
  const rows = await db.all<PaymentRow>(
    `SELECT * FROM billing_payments WHERE chain_flagged_at IS NOT NULL AND status = 'verified' ORDER BY chain_flagged_at DESC, id LIMIT 50`,
  );
  return rows.map((r) => pendingPaymentDto(site, r, nodeConfigured));
}

/**
 * Payments the chain watcher follows: open ones (requested, not expired more than a week ago;
 * submitted) and verified ones not yet watched to `depth` confirmations.
 */
export const watchedPayments = (db: Queryable, expiredSince: string, depth: number) =>
  db.all<PaymentRow>(
    `SELECT * FROM billing_payments WHERE (status = 'requested' AND expires_at > ?) OR status = 'submitted'
       OR (status = 'verified' AND (chain_status IS NULL OR chain_status <> 'confirmed' OR chain_confirmations < ?) AND chain_flagged_at IS NULL
           AND verified_at > ?)`,
    [expiredSince, depth, expiredSince],
  );

/** The Subscription entity (section 3): `amount` is the plan's USD price. */
export function subscriptionDto(site: SiteConfig, row: SubscriptionRow): z.infer<typeof subscriptionSchema> {
  return {
    id: row.subscription_id,
    planType: row.plan_type,
    status: row.status,
    cancelAtPeriodEnd: Number(row.cancel_at_period_end) === 1,
    amount: planOf(site, row.plan_type).usdPrice,
    btcAmount: satsToBtc(row.amount_sats),
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    ...(row.grace_until ? { gracePeriodEnd: row.grace_until } : {}),
  };
}

export type SubscriptionDto = ReturnType<typeof subscriptionDto>;

/** Every payment id of a member, oldest first (the admin's member history reads their streams). */
export async function paymentIdsOfMember(db: Queryable, userId: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    'SELECT id FROM billing_payments WHERE user_id = ? ORDER BY COALESCE(requested_at, submitted_at), id',
    [userId],
  );
  return rows.map((r) => r.id);
}
