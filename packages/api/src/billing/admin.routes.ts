/**
 * Admin payment routes: the pending list (keyset pages: `?limit=&after=`), verify (activates), reject
 * (with a reason), analytics (per day with `?days=`, per plan and month with `?months=`).
 */
import {
  analyticsByPlanSchema,
  analyticsSchema,
  multiLineText,
  pendingPaymentsAnswerSchema,
  rejectedPaymentAnswerSchema,
  verifiedPaymentAnswerSchema,
  verifyPaymentBodySchema,
} from '@members/ui/api/schemas';
import { z } from 'zod';
import { callerOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { pageQuerySchema } from '../shared/paging.js';
import { analyticsSeries } from './analytics.projection.js';
import { nodeConfigured } from './chain/chainWatcher.js';
import { rejectPayment, verifyPayment } from './payments.service.js';
import { analyticsByPlan } from './planAnalytics.projection.js';
import { flaggedPayments, paymentById, pendingPayments } from './readModels.js';
import { billingStats } from './stats.js';

// The text policy (@members/ui text.ts): the member's mail and the audit's payment history carry it.
const rejectSchema = z.object({
  reason: multiLineText({
    min: 1,
    max: 500,
    required: 'Please give a reason for rejecting the payment',
    empty: 'Please give a reason for rejecting the payment',
  }),
});
const analyticsQuery = z
  .object({
    days: z.coerce.number({ error: 'must be a number' }).int().min(1).max(366).optional(),
    months: z.coerce.number({ error: 'must be a number' }).int().min(1).max(36).optional(),
  })
  .refine((q) => q.days === undefined || q.months === undefined, { message: 'give either days or months, not both', path: ['months'] });

export const adminPaymentRoutes: Routes = (api, ctx) => {
  const listPendingPaymentsDoc = describe({
    summary: 'Payments waiting for verification, with what the chain shows',
    description:
      "Each payment's `chain` says what the site's Bitcoin node shows (`unchecked` without one); `flagged` lists verified payments whose transaction left the chain (a reorg, a double spend), for the admin to judge.",
    tags: ['billing', 'admin'],
    access: 'admin',
    permission: 'payments',
    query: pageQuerySchema,
    ok: { 200: pendingPaymentsAnswerSchema },
  });
  const verifyDoc = describe({
    summary: 'Verify a payment (starts or extends the subscription)',
    description:
      "Concurrent verifications of one payment produce exactly one activation; a second is a 409. With a Bitcoin node configured (`BITCOIN_RPC_URL`) a payment whose `chain.status` is not `confirmed` is refused with 409 `payment.chain_<status>` unless the body gives `override.reason` (kept in the event); the event keeps the chain's evidence.",
    tags: ['billing', 'admin'],
    access: 'admin',
    permission: 'payments',
    params: idParams,
    body: verifyPaymentBodySchema,
    ok: { 200: verifiedPaymentAnswerSchema },
    errors: [404, 409],
  });
  const rejectOneDoc = describe({
    summary: 'Reject a payment with a reason (mailed to the member)',
    tags: ['billing', 'admin'],
    access: 'admin',
    permission: 'payments',
    params: idParams,
    body: rejectSchema,
    ok: { 200: rejectedPaymentAnswerSchema },
    errors: [404, 409],
  });
  const analyticsDoc = describe({
    summary: 'Per-day figures (`?days=`, default 30) or per plan and month (`?months=`)',
    description:
      '`?days=N` (1-366): per UTC day revenue, verified payments, registrations, approvals, active subscriptions. `?months=N` (1-36): `byPlan`, per plan and UTC calendar month (the current one last): active members at the month end, new, churned, renewed, median membership length in days, verified revenue (satoshis and a BTC decimal string); docs/operations.md "Analytics" defines each figure. Both together are a 400.',
    tags: ['billing', 'admin'],
    access: 'admin',
    permission: 'analytics',
    query: analyticsQuery,
    ok: { 200: z.union([analyticsSchema, analyticsByPlanSchema]) },
  });

  api.get('/admin/pending-payments', listPendingPaymentsDoc, async function listPendingPayments(c) {
    const page = c.req.valid('query');
    const node = nodeConfigured(ctx.env);
    const { payments, nextCursor } = await pendingPayments(ctx.db, ctx.site, page, node);
    // `count` is every pending payment (from the precomputed counters), not only this page's.
    const { pendingPayments: count } = await billingStats(ctx.db);
    const flagged = page.after ? [] : await flaggedPayments(ctx.db, ctx.site, node);
    const chainNode = { configured: node, confirmations: ctx.site.bitcoin.confirmations };
    return ok(c, { payments, flagged, chainNode, count, nextCursor });
  });

  api.post('/admin/payments/:id/verify', verifyDoc, async function verify(c) {
    const { id } = c.req.valid('param');
    const { override } = c.req.valid('json');
    const subscription = valueOr(await verifyPayment(ctx, id, callerOf(c), override ? { override } : {}));
    const customRequestId = (await paymentById(ctx.db, id))?.custom_request_id;
    return ok(c, { paymentId: id, status: 'verified', subscription, ...(customRequestId ? { customRequestId } : {}) });
  });

  api.post('/admin/payments/:id/reject', rejectOneDoc, async function rejectOne(c) {
    const { id } = c.req.valid('param');
    const { reason } = c.req.valid('json');
    valueOr(await rejectPayment(ctx, id, reason, callerOf(c)));
    return ok(c, { paymentId: id, status: 'rejected', reason });
  });

  api.get('/admin/analytics', analyticsDoc, async function analytics(c) {
    const { days, months } = c.req.valid('query');
    if (months !== undefined) return ok(c, await analyticsByPlan(ctx.db, ctx.clock.now(), months));
    return ok(c, await analyticsSeries(ctx.db, ctx.clock.now(), days ?? 30));
  });
};
