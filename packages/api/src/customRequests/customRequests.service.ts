/**
 * The custom video requests' use cases (issue 30, annual plan): a member asks, an admin quotes or
 * declines, the member pays through billing (a payment to a fresh address, verified by an admin
 * with the existing payment verification), the admin delivers a video of the catalog that only the
 * requester (and admins) can then see and stream. Who may ask is the shared `customRequestAccess`
 * decision; what each step may do is the decider's. Every use case answers a `Result`.
 */
import { accessErrorCode, customRequestAccess } from '@members/ui/access';
import type { adminCustomRequestSchema, customRequestSchema } from '@members/ui/api/schemas';
import { parseBtc, satsToBtc } from '@members/ui/money';
import type { z } from 'zod';
import {
  CUSTOM_REQUEST_PAYMENT,
  onCustomPaymentVerified,
  openCustomRequestPayment,
  type PaymentRow,
  type PaymentVerified,
  paymentById,
  subscriptionOf,
} from '../billing/index.js';
import { findVideo } from '../catalog/index.js';
import { aggregate } from '../eventstore/commandHandler.js';
import type { EventMetadata } from '../eventstore/types.js';
import { type MemberStanding, usersByIds } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type CustomRequestCommand, customRequestDecider, customRequestStream, REQUEST_NOT_FOUND } from './customRequest.decider.js';
import type { CustomRequestRow } from './customRequest.projection.js';

const customRequests = aggregate(customRequestDecider, customRequestStream, { retries: 50 });

export type CustomRequestDto = z.infer<typeof customRequestSchema>;
export type AdminCustomRequestDto = z.infer<typeof adminCustomRequestSchema>;

async function run(ctx: AppContext, requestId: string, command: CustomRequestCommand, meta: EventMetadata): Promise<Result<void>> {
  const result = await customRequests(ctx.store).handle(requestId, command, meta);
  return result.ok ? success(undefined) : result;
}

export const requestRow = (ctx: Pick<AppContext, 'db'>, id: string) =>
  ctx.db.get<CustomRequestRow>('SELECT * FROM custom_requests WHERE id = ?', [id]);

/** The plan of the member's current subscription (null without one). */
async function planOfMember(ctx: AppContext, userId: string): Promise<string | null> {
  return (await subscriptionOf(ctx.db, userId))?.plan_type ?? null;
}

/** Whether this member may request a custom video now, in the access decision's words. */
export async function requestAccessOf(ctx: AppContext, user: MemberStanding) {
  return customRequestAccess(
    {
      approved: user.approved,
      status: user.status,
      membershipStatus: user.membership_status,
      subscriptionStatus: user.subscription_status,
    },
    await planOfMember(ctx, user.id),
  );
}

function paymentDto(p: PaymentRow | undefined) {
  if (!p) return null;
  return { id: p.id, address: p.address, btcAmount: satsToBtc(Number(p.amount_sats)), status: p.status, bip21Uri: p.bip21_uri };
}

export async function requestDto(ctx: AppContext, row: CustomRequestRow): Promise<CustomRequestDto> {
  const payment = row.payment_id ? await paymentById(ctx.db, row.payment_id) : undefined;
  return {
    id: row.id,
    status: row.status,
    description: row.description,
    requestedAt: row.requested_at,
    btcAmount: row.amount_sats === null ? null : satsToBtc(Number(row.amount_sats)),
    declineReason: row.decline_reason,
    payment: paymentDto(payment),
    videoId: row.video_id,
    updatedAt: row.updated_at,
  };
}

/** The member's new request; refused (403) with the access decision's words unless they hold an active annual plan. */
export async function submitRequest(
  ctx: AppContext,
  user: MemberStanding,
  description: string,
  caller: Caller,
): Promise<Result<CustomRequestDto>> {
  const access = await requestAccessOf(ctx, user);
  if (!access.allowed)
    return failure(
      access.reason === 'vip_subscription_required' || access.reason === 'subscription_required'
        ? 'custom_request.not_annual'
        : accessErrorCode(access.reason),
      access.message,
    );
  const requestId = ctx.ids.next();
  const meta = eventMetadata(ctx, caller);
  const ran = await run(ctx, requestId, { type: 'SubmitCustomRequest', requestId, userId: user.id, description, now: meta.at }, meta);
  if (!ran.ok) return ran;
  return success(await requestDto(ctx, (await requestRow(ctx, requestId)) as CustomRequestRow));
}

/** The member's own requests, newest first (a member whose plan ended still sees them). */
export async function requestsOf(ctx: AppContext, userId: string): Promise<CustomRequestDto[]> {
  const rows = await ctx.db.all<CustomRequestRow>('SELECT * FROM custom_requests WHERE user_id = ? ORDER BY requested_at DESC, id', [
    userId,
  ]);
  return Promise.all(rows.map((r) => requestDto(ctx, r)));
}

/** The admins' queue: open requests first (requested, quoted, paid: oldest first), then the closed ones. */
export async function allRequests(ctx: AppContext): Promise<AdminCustomRequestDto[]> {
  const rows = await ctx.db.all<CustomRequestRow>(
    `SELECT r.* FROM custom_requests r
      ORDER BY CASE r.status WHEN 'paid' THEN 0 WHEN 'requested' THEN 1 WHEN 'quoted' THEN 2 ELSE 3 END, r.requested_at, r.id
      LIMIT 500`,
  );
  const members = await usersByIds(
    ctx.db,
    rows.map((r) => r.user_id),
  );
  return Promise.all(
    rows.map(async (r) => {
      const m = members.get(r.user_id);
      return { ...(await requestDto(ctx, r)), userId: r.user_id, displayName: `${m?.first_name ?? ''} ${m?.last_name ?? ''}`.trim() };
    }),
  );
}

/** An admin's price, as typed in BTC ("0.002"). */
export async function quoteRequest(ctx: AppContext, requestId: string, btcAmount: string, caller: Caller & { actorId: string }) {
  const sats = parseBtc(btcAmount.trim());
  if (sats === undefined || sats <= 0)
    return failure('validation.invalid_input', 'btcAmount: must be a BTC amount above zero such as "0.002"');
  const meta = eventMetadata(ctx, caller);
  const ran = await run(
    ctx,
    requestId,
    {
      type: 'QuoteCustomRequest',
      requestId,
      amountSats: sats,
      maxAmountSats: parseBtc(ctx.site.customRequests.maxQuoteBtc) ?? 0,
      quotedBy: caller.actorId,
      now: meta.at,
    },
    meta,
  );
  return ran.ok ? success(await requestDto(ctx, (await requestRow(ctx, requestId)) as CustomRequestRow)) : ran;
}

/** Whether the request's payment is still waiting for an admin (then it cannot be declined or paid again). */
async function openPaymentOf(ctx: AppContext, row: CustomRequestRow | undefined): Promise<PaymentRow | undefined> {
  if (!row?.payment_id) return undefined;
  const payment = await paymentById(ctx.db, row.payment_id);
  return payment && (payment.status === 'requested' || payment.status === 'submitted' || payment.status === 'verified')
    ? payment
    : undefined;
}

export async function declineRequest(ctx: AppContext, requestId: string, reason: string, caller: Caller & { actorId: string }) {
  const meta = eventMetadata(ctx, caller);
  const paymentOpen = Boolean(await openPaymentOf(ctx, await requestRow(ctx, requestId)));
  const ran = await run(
    ctx,
    requestId,
    { type: 'DeclineCustomRequest', requestId, reason, declinedBy: caller.actorId, paymentOpen, now: meta.at },
    meta,
  );
  return ran.ok ? success(await requestDto(ctx, (await requestRow(ctx, requestId)) as CustomRequestRow)) : ran;
}

/**
 * The member accepts the quote: a payment to a fresh address for the quoted amount (billing's
 * `openCustomRequestPayment`), waiting for an admin's verification. The payment already open is
 * answered again (`created: false`); a rejected one is replaced by a new one.
 */
export async function payRequest(
  ctx: AppContext,
  user: MemberStanding,
  requestId: string,
  transactionHash: string | null | undefined,
  caller: Caller,
): Promise<Result<{ created: boolean; payment: PaymentRow; request: CustomRequestDto }>> {
  const row = await requestRow(ctx, requestId);
  // Another member's request is not theirs to know about.
  if (!row || row.user_id !== user.id) return failure('custom_request.not_found', REQUEST_NOT_FOUND);
  const open = await openPaymentOf(ctx, row);
  if (open) return success({ created: false, payment: open, request: await requestDto(ctx, row) });
  if (row.status !== 'quoted')
    return failure(
      'custom_request.state_conflict',
      row.status === 'requested' ? 'This request has not been quoted yet' : `This request is already ${row.status}`,
    );
  const paid = await openCustomRequestPayment(
    ctx,
    user,
    {
      customRequestId: requestId,
      amountSats: Number(row.amount_sats),
      label: `${ctx.site.siteName} custom video`,
      transactionHash,
    },
    caller,
  );
  if (!paid.ok) return paid;
  const meta = eventMetadata(ctx, caller);
  const ran = await run(
    ctx,
    requestId,
    { type: 'OpenCustomRequestPayment', requestId, userId: user.id, paymentId: paid.value.id, now: meta.at },
    meta,
  );
  if (!ran.ok) return ran;
  return success({
    created: true,
    payment: paid.value,
    request: await requestDto(ctx, (await requestRow(ctx, requestId)) as CustomRequestRow),
  });
}

/** Billing verified a request's payment: the request is paid (registered with billing at start). */
export async function markPaid(ctx: AppContext, payment: PaymentVerified['data'], meta: EventMetadata): Promise<Result<void>> {
  if (payment.planType !== CUSTOM_REQUEST_PAYMENT || !payment.customRequestId) return success(undefined);
  const requestId = payment.customRequestId;
  return run(
    ctx,
    requestId,
    {
      type: 'MarkCustomRequestPaid',
      requestId,
      paymentId: payment.paymentId,
      amountSats: Number(payment.amountSats),
      verifiedBy: payment.verifiedBy,
      now: meta.at,
    },
    meta,
  );
}

let registered = false;
/** Tells billing what a verified request payment does (once per process). */
export function registerWithBilling(): void {
  if (registered) return;
  registered = true;
  onCustomPaymentVerified(markPaid);
}

/** The admin delivers a catalog video: from now on only the requester (and admins) can find and stream it. */
export async function deliverRequest(ctx: AppContext, requestId: string, videoId: string, caller: Caller & { actorId: string }) {
  if (!(await findVideo(ctx.db, videoId, { includeUnpublished: true }))) return failure('video.not_found', 'videoId: Video not found');
  const meta = eventMetadata(ctx, caller);
  const ran = await run(
    ctx,
    requestId,
    { type: 'DeliverCustomRequest', requestId, videoId, deliveredBy: caller.actorId, now: meta.at },
    meta,
  );
  return ran.ok ? success(await requestDto(ctx, (await requestRow(ctx, requestId)) as CustomRequestRow)) : ran;
}
