/**
 * The payment use cases behind the routes: request (invoice), submit, verify, reject. Rules live in
 * the deciders; this file gathers their inputs (prices, addresses, read-model pre-checks), runs
 * them through `handleCommand`, and turns the race-proof unique indexes into clear 409s.
 */
import type { AppContext } from '../context.js';
import { handleCommand } from '../eventstore/commandHandler.js';
import type { EventMetadata } from '../eventstore/types.js';
import type { CurrentUserRow } from '../http/auth.js';
import { conflict, fromDomainError, HttpError } from '../http/envelope.js';
import { receivingAddressFor } from './addressAllocator.js';
import { uniqueRule } from './billing.projection.js';
import { bip21Uri } from './bitcoinAddress.js';
import { type PaymentVerified, paymentDecider, paymentStreamId } from './payment.decider.js';
import { type PlanType, planLabel, planOf } from './plans.js';
import { latestRequest, paymentById, paymentByTxHash, pendingPaymentOf } from './readModels.js';
import { applyVerifiedPayment } from './subscriptions.service.js';

export const APPROVAL_REQUIRED = 'Your account must be approved before subscribing. Please wait for admin approval.';
export const HASH_USED = 'This transaction hash has already been used for another payment';
const pendingExists = (planType: PlanType) =>
  `You already have a pending ${planLabel(planType)} payment awaiting verification. Please wait for it to be verified.`;

export function metaOf(ctx: AppContext, actorId: string | null, requestId?: string): EventMetadata {
  return { actorId, requestId: requestId ?? null, at: ctx.clock.now().toISOString() };
}

/** Section 4: approved means `approved` is true, or status is approved or active. */
export function requireApproved(user: CurrentUserRow): void {
  const approved = Number(user.approved) === 1 || (user.status as string) === 'approved' || (user.status as string) === 'active';
  if (!approved) throw new HttpError(403, APPROVAL_REQUIRED);
}

/** Returns the member's open request for the plan, or makes a new one (fresh address in xpub mode). */
export async function requestPayment(ctx: AppContext, user: CurrentUserRow, planType: PlanType, requestId?: string) {
  const plan = planOf(ctx.site, planType);
  const now = ctx.clock.now();
  const open = await latestRequest(ctx.db, user.id, planType, plan.amountSats, now.toISOString());
  if (open) return { created: false, payment: open };
  const paymentId = ctx.ids.next();
  const { address, addressIndex } = await receivingAddressFor(ctx, paymentId, user.id);
  const expiresAt = new Date(now.getTime() + ctx.site.bitcoin.paymentRequestTtlHours * 3_600_000).toISOString();
  const result = await handleCommand(
    ctx.store,
    paymentStreamId(paymentId),
    paymentDecider,
    {
      type: 'RequestPayment',
      data: {
        paymentId,
        userId: user.id,
        planType,
        amountSats: plan.amountSats,
        address,
        ...(addressIndex === undefined ? {} : { addressIndex }),
        bip21Uri: bip21Uri(address, plan.btcAmount, `${ctx.site.siteName} ${plan.name}`),
        expiresAt,
      },
      now: now.toISOString(),
    },
    metaOf(ctx, user.id, requestId),
  );
  if (!result.ok) throw fromDomainError(result.error);
  return { created: true, payment: (await paymentById(ctx.db, paymentId)) as NonNullable<Awaited<ReturnType<typeof paymentById>>> };
}

export interface SubmitInput {
  planType: PlanType;
  amountSats: number;
  txHash?: string;
}

/** Records the member's "I've sent payment" against their latest request for the plan, or a new payment. */
export async function submitPayment(ctx: AppContext, user: CurrentUserRow, input: SubmitInput, requestId?: string) {
  // 1. Friendly pre-checks on the read models (the unique indexes below close the races).
  if (input.txHash && (await paymentByTxHash(ctx.db, input.txHash))) throw conflict(HASH_USED);
  if (await pendingPaymentOf(ctx.db, user.id, input.planType)) throw conflict(pendingExists(input.planType));
  // 2. Pay against the request whose address the member was shown, if any.
  const request = await latestRequest(ctx.db, user.id, input.planType, input.amountSats);
  const paymentId = request?.id ?? ctx.ids.next();
  try {
    const result = await handleCommand(
      ctx.store,
      paymentStreamId(paymentId),
      paymentDecider,
      {
        type: 'SubmitPayment',
        data: {
          paymentId,
          userId: user.id,
          userEmail: user.email,
          planType: input.planType,
          amountSats: input.amountSats,
          ...(input.txHash ? { txHash: input.txHash } : {}),
        },
        now: ctx.clock.now().toISOString(),
      },
      metaOf(ctx, user.id, requestId),
    );
    if (!result.ok) throw fromDomainError(result.error);
  } catch (err) {
    // 3. A concurrent submission won the race: same answers as the pre-checks.
    const rule = uniqueRule(err);
    if (rule === 'tx_hash') throw conflict(HASH_USED);
    if (rule === 'one_pending') throw conflict(pendingExists(input.planType));
    throw err;
  }
  return (await paymentById(ctx.db, paymentId)) as NonNullable<Awaited<ReturnType<typeof paymentById>>>;
}

/** Verifies once and activates or renews the member's subscription. */
export async function verifyPayment(ctx: AppContext, adminId: string, paymentId: string, requestId?: string) {
  const meta = metaOf(ctx, adminId, requestId);
  const result = await handleCommand(
    ctx.store,
    paymentStreamId(paymentId),
    paymentDecider,
    { type: 'VerifyPayment', paymentId, verifiedBy: adminId, now: meta.at },
    meta,
    { retries: 50 },
  );
  if (!result.ok) throw fromDomainError(result.error);
  const verified = result.events[0] as PaymentVerified;
  return applyVerifiedPayment(ctx, verified.data, meta);
}

export async function rejectPayment(ctx: AppContext, adminId: string, paymentId: string, reason: string, requestId?: string) {
  const meta = metaOf(ctx, adminId, requestId);
  const result = await handleCommand(
    ctx.store,
    paymentStreamId(paymentId),
    paymentDecider,
    { type: 'RejectPayment', paymentId, reason, rejectedBy: adminId, now: meta.at },
    meta,
    { retries: 50 },
  );
  if (!result.ok) throw fromDomainError(result.error);
}
