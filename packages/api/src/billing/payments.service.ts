/**
 * The payment use cases: request (invoice), submit, verify, reject. Rules live in the deciders and
 * in `checkSubmission` (pure); this file gathers their inputs (prices, addresses, read-model
 * pre-checks), runs them through the payment aggregate's command handler (`payments(ctx.store).handle`), and turns the race-proof unique indexes into
 * clear conflicts. Every use case answers a `Result`; none needs HTTP.
 */
import { isApproved, SUBSCRIBING_NEEDS_APPROVAL, SUBSCRIBING_WHILE_SUSPENDED } from '@members/ui/access';
import { parseBtc, satsToBtc } from '@members/ui/money';
import type { SiteConfig } from '../config/site.js';
import type { EventMetadata } from '../eventstore/types.js';
import { findUserById, type MemberStanding } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { type Failure, failure, type Result, success } from '../shared/result.js';
import { receivingAddressFor } from './addressAllocator.js';
import { payments } from './billing.commands.js';
import { uniqueRule } from './billing.projection.js';
import { bip21Uri } from './bitcoinAddress.js';
import { nodeConfigured } from './chain/chainWatcher.js';
import { closeBillingOfErasedMember } from './erasure.js';
import { CANCELED_BY_ERASURE, normalizeTxHash, type PaymentVerified, TX_HASH_PROBLEM } from './payment.decider.js';
import { CUSTOM_REQUEST_PAYMENT, type PlanType, planLabel, planOf } from './plans.js';
import { latestRequest, type PaymentRow, paymentById, paymentByTxHash, pendingPaymentOf } from './readModels.js';
import { applyVerifiedPayment, currentSubscription } from './subscriptions.service.js';

export const APPROVAL_REQUIRED = SUBSCRIBING_NEEDS_APPROVAL;
export const HASH_USED = 'This transaction hash has already been used for another payment';
export const OWN_ACCOUNT_ONLY = 'You can only submit payments for your own account';
const pendingExists = (planType: PlanType) =>
  `You already have a pending ${planLabel(planType)} payment awaiting verification. Please wait for it to be verified.`;

/** The member paying: who they are and their standing (identity's read model). */
export type Payer = Pick<MemberStanding, 'id' | 'email' | 'approved' | 'status'>;

/** Only approved members may pay (spec §4, the shared approval rule); undefined when they may. */
export function payerRefusal(payer: Pick<Payer, 'approved' | 'status'>): Failure | undefined {
  if (payer.status === 'suspended') return failure('payment.approval_required', SUBSCRIBING_WHILE_SUSPENDED);
  return isApproved({ approved: Number(payer.approved), status: payer.status })
    ? undefined
    : failure('payment.approval_required', APPROVAL_REQUIRED);
}

/** Whether the account was erased (identity's read model keeps the row with `erased_at`). */
async function memberErased(ctx: AppContext, userId: string): Promise<boolean> {
  const row = await findUserById(ctx.db, userId);
  return Boolean(row?.erased_at);
}

/** Returns the member's open request for the plan, or makes a new one (fresh address in xpub mode). */
export async function requestPayment(
  ctx: AppContext,
  payer: Payer,
  planType: PlanType,
  caller: Caller,
): Promise<Result<{ created: boolean; payment: PaymentRow }>> {
  const refused = payerRefusal(payer);
  if (refused) return refused;
  const plan = planOf(ctx.site, planType);
  const now = ctx.clock.now();
  const open = await latestRequest(ctx.db, payer.id, planType, plan.amountSats, now.toISOString());
  if (open) return success({ created: false, payment: open });
  const paymentId = ctx.ids.next();
  const { address, addressIndex } = await receivingAddressFor(ctx, paymentId, payer.id);
  const expiresAt = new Date(now.getTime() + ctx.site.bitcoin.paymentRequestTtlHours * 3_600_000).toISOString();
  const result = await payments(ctx.store).handle(
    paymentId,
    {
      type: 'RequestPayment',
      data: {
        paymentId,
        userId: payer.id,
        planType,
        amountSats: plan.amountSats,
        address,
        ...(addressIndex === undefined ? {} : { addressIndex }),
        bip21Uri: bip21Uri(address, plan.btcAmount, `${ctx.site.siteName} ${plan.name}`),
        expiresAt,
      },
      now: now.toISOString(),
    },
    eventMetadata(ctx, caller),
  );
  if (!result.ok) return result;
  return success({ created: true, payment: (await paymentById(ctx.db, paymentId)) as PaymentRow });
}

/** A member's "I've sent payment" as typed: the account it is for, the plan, the amount, the hash. */
export interface SubmissionInput {
  /** The account the payment is for; left out, the payer's own. */
  userId?: string | undefined;
  planType: PlanType;
  /** Decimal BTC as typed, e.g. "0.005". */
  btcAmount: string;
  transactionHash?: string | null | undefined;
}

export interface CheckedSubmission {
  planType: PlanType;
  amountSats: number;
  txHash?: string;
}

/**
 * The submission rules, in the order members meet them: a well-formed transaction hash, their own
 * account only, a BTC amount, exactly the plan's price. Pure.
 * @example checkSubmission(site, 'u1', { planType: 'monthly', btcAmount: '0.0005' }) // { ok: true, value: { amountSats: 50000, … } }
 */
export function checkSubmission(site: SiteConfig, payerId: string, input: SubmissionInput): Result<CheckedSubmission> {
  const txHash = normalizeTxHash(input.transactionHash);
  if (txHash === null) return failure('validation.invalid_input', TX_HASH_PROBLEM);
  if ((input.userId ?? payerId) !== payerId) return failure('payment.not_yours', OWN_ACCOUNT_ONLY);
  const plan = planOf(site, input.planType);
  const sats = parseBtc(input.btcAmount.trim());
  if (sats === undefined) return failure('validation.invalid_input', 'btcAmount: must be a BTC amount such as "0.005"');
  if (sats !== plan.amountSats)
    return failure('validation.invalid_input', `btcAmount: must be exactly ${plan.btcAmount} BTC for the ${plan.name} plan`);
  return success({ planType: input.planType, amountSats: sats, ...(txHash ? { txHash } : {}) });
}

/** Records the member's "I've sent payment" against their latest request for the plan, or a new payment. */
export async function submitPayment(ctx: AppContext, payer: Payer, input: SubmissionInput, caller: Caller): Promise<Result<PaymentRow>> {
  const refused = payerRefusal(payer);
  if (refused) return refused;
  const checked = checkSubmission(ctx.site, payer.id, input);
  if (!checked.ok) return checked;
  const { planType, amountSats, txHash } = checked.value;
  // 1. Friendly pre-checks on the read models (the unique indexes below close the races).
  if (txHash && (await paymentByTxHash(ctx.db, txHash))) return failure('payment.tx_hash_used', HASH_USED);
  if (await pendingPaymentOf(ctx.db, payer.id, planType)) return failure('payment.pending_exists', pendingExists(planType));
  // 2. Pay against the request whose address the member was shown, if any.
  const request = await latestRequest(ctx.db, payer.id, planType, amountSats);
  const paymentId = request?.id ?? ctx.ids.next();
  try {
    const result = await payments(ctx.store).handle(
      paymentId,
      {
        type: 'SubmitPayment',
        data: { paymentId, userId: payer.id, userEmail: payer.email, planType, amountSats, ...(txHash ? { txHash } : {}) },
        now: ctx.clock.now().toISOString(),
      },
      eventMetadata(ctx, caller),
    );
    if (!result.ok) return result;
  } catch (err) {
    // 3. A concurrent submission won the race: same answers as the pre-checks.
    const rule = uniqueRule(err);
    if (rule === 'tx_hash') return failure('payment.tx_hash_used', HASH_USED);
    if (rule === 'one_pending') return failure('payment.pending_exists', pendingExists(planType));
    throw err;
  }
  return success((await paymentById(ctx.db, paymentId)) as PaymentRow);
}

/**
 * Verifies once and activates or renews the member's subscription (answers the subscription). A
 * payment of an erased member is canceled (if an erasure made before that rule left it open) and
 * refused: no subscription is activated for an erased account.
 */
export async function verifyPayment(ctx: AppContext, paymentId: string, caller: Caller, opts: { override?: { reason: string } } = {}) {
  const meta = eventMetadata(ctx, caller);
  const verifiedBy = caller.actorId ?? caller.actor ?? 'system';
  const row = await paymentById(ctx.db, paymentId);
  if (row && (await memberErased(ctx, row.user_id))) {
    await closeBillingOfErasedMember(ctx, row.user_id, meta);
    return failure('payment.state_conflict', CANCELED_BY_ERASURE);
  }
  const result = await payments(ctx.store).handle(
    paymentId,
    {
      type: 'VerifyPayment',
      paymentId,
      verifiedBy,
      now: meta.at,
      // With a node configured the chain's status must be `confirmed`, or the admin overrides with a reason.
      chainChecked: nodeConfigured(ctx.env),
      ...(opts.override ? { override: opts.override } : {}),
    },
    meta,
    { retries: 50 },
  );
  if (!result.ok) return result;
  const verified = result.events[0] as PaymentVerified;
  const { customRequestId, planType } = verified.data;
  if (planType === CUSTOM_REQUEST_PAYMENT) {
    // Pays for a custom video request, not a plan: the subscription is left as it is.
    if (customRequestId && customPaymentVerified) {
      const paid = await customPaymentVerified(ctx, verified.data, meta);
      if (!paid.ok) return paid;
    }
    return success(await currentSubscription(ctx, verified.data.userId));
  }
  return applyVerifiedPayment(ctx, { ...verified.data, planType }, meta);
}

/** What runs when a custom request's payment is verified (the custom requests area registers it). */
export type CustomPaymentVerified = (ctx: AppContext, payment: PaymentVerified['data'], meta: EventMetadata) => Promise<Result<unknown>>;
let customPaymentVerified: CustomPaymentVerified | undefined;
/** Billing knows nothing of custom requests; their area tells it what a verified request payment does. */
export function onCustomPaymentVerified(handler: CustomPaymentVerified): void {
  customPaymentVerified = handler;
}

/** What the custom request payment is for, and its member. */
export interface CustomPaymentInput {
  customRequestId: string;
  amountSats: number;
  /** The BIP21 label, e.g. "Site custom video". */
  label: string;
  transactionHash?: string | null | undefined;
}

/**
 * Opens the payment of a quoted custom request, like a subscription payment: a fresh receiving
 * address (xpub mode), then the member's submission (with the transaction hash when given), so it
 * waits in the admins' pending payments for `verifyPayment`. Answers the payment row.
 */
export async function openCustomRequestPayment(
  ctx: AppContext,
  payer: Payer,
  input: CustomPaymentInput,
  caller: Caller,
): Promise<Result<PaymentRow>> {
  const refused = payerRefusal(payer);
  if (refused) return refused;
  const txHash = normalizeTxHash(input.transactionHash);
  if (txHash === null) return failure('validation.invalid_input', TX_HASH_PROBLEM);
  if (txHash && (await paymentByTxHash(ctx.db, txHash))) return failure('payment.tx_hash_used', HASH_USED);
  const meta = eventMetadata(ctx, caller);
  const now = ctx.clock.now();
  const paymentId = ctx.ids.next();
  const { address, addressIndex } = await receivingAddressFor(ctx, paymentId, payer.id);
  const expiresAt = new Date(now.getTime() + ctx.site.bitcoin.paymentRequestTtlHours * 3_600_000).toISOString();
  const requested = await payments(ctx.store).handle(
    paymentId,
    {
      type: 'RequestPayment',
      data: {
        paymentId,
        userId: payer.id,
        planType: CUSTOM_REQUEST_PAYMENT,
        amountSats: input.amountSats,
        address,
        ...(addressIndex === undefined ? {} : { addressIndex }),
        bip21Uri: bip21Uri(address, satsToBtc(input.amountSats), input.label),
        customRequestId: input.customRequestId,
        expiresAt,
      },
      now: now.toISOString(),
    },
    meta,
  );
  if (!requested.ok) return requested;
  try {
    const submitted = await payments(ctx.store).handle(
      paymentId,
      {
        type: 'SubmitPayment',
        data: {
          paymentId,
          userId: payer.id,
          userEmail: payer.email,
          planType: CUSTOM_REQUEST_PAYMENT,
          amountSats: input.amountSats,
          customRequestId: input.customRequestId,
          ...(txHash ? { txHash } : {}),
        },
        now: now.toISOString(),
      },
      meta,
    );
    if (!submitted.ok) return submitted;
  } catch (err) {
    if (uniqueRule(err) === 'tx_hash') return failure('payment.tx_hash_used', HASH_USED);
    throw err;
  }
  return success((await paymentById(ctx.db, paymentId)) as PaymentRow);
}

export async function rejectPayment(
  ctx: AppContext,
  paymentId: string,
  reason: string,
  caller: Caller & { actorId: string },
): Promise<Result<void>> {
  const meta = eventMetadata(ctx, caller);
  const result = await payments(ctx.store).handle(
    paymentId,
    { type: 'RejectPayment', paymentId, reason, rejectedBy: caller.actorId, now: meta.at },
    meta,
    { retries: 50 },
  );
  return result.ok ? success(undefined) : result;
}
