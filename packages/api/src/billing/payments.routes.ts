/**
 * Member payment routes (Bitcoin only). The spec's card-era calls map onto the Bitcoin flow:
 * - POST /subscriptions/create {planId|planType}       = POST /payments/create-subscription-intent {planType}
 *   (a payment request: address, BTC amount, BIP21 URI, expiry; the open one is returned again);
 * - POST /payments/confirm-subscription {same as submit} = POST /payments/submit-bitcoin-payment
 *   (the member says "I've sent payment"; `userId` may be left out and defaults to the caller).
 * `paymentMethodId` is accepted and ignored: nothing card-based exists.
 */
import {
  memberPendingPaymentsSchema,
  paymentRequestSchema,
  paymentSubmissionSchema,
  requestedPlanTypeSchema,
  submittedPaymentSchema,
} from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf, userOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe, type RouteDoc } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { nodeConfigured } from './chain/chainWatcher.js';
import { payerRefusal, requestPayment, submitPayment } from './payments.service.js';
import type { PlanType } from './plans.js';
import { memberPendingPayments, paymentRequestDto, submittedPaymentDto } from './readModels.js';

const planType = requestedPlanTypeSchema;

const intentSchema = z
  .object({ planType: planType.optional(), planId: planType.optional(), paymentMethodId: z.unknown().optional() })
  .refine((b) => b.planType ?? b.planId, { message: 'must be monthly or annual', path: ['planType'] });

/** Shapes only (shared with the clients): the submission rules (own account, exact price, the hash's form) are the service's. */
const submitSchema = paymentSubmissionSchema;

/** The signed-in member is refused before their body is read when they may not pay yet. */
function payer(c: Context<AppEnv>) {
  const refused = payerRefusal(userOf(c));
  if (refused) throw new HttpError(refused.error);
}

export const paymentRoutes: Routes = (api, ctx) => {
  const intentDoc = {
    summary: 'Open a Bitcoin payment request for a plan',
    description:
      'Address, BTC amount, BIP21 URI and expiry; 201 when created, 200 with the open one when it exists. Approved members only (403 otherwise). `planId` is an alias of `planType`; `paymentMethodId` is ignored.',
    tags: ['billing'],
    access: 'member',
    admit: payer,
    body: intentSchema,
    ok: { 200: paymentRequestSchema, 201: paymentRequestSchema },
    errors: [409],
  } satisfies RouteDoc;
  const submitDoc = {
    summary: 'Tell the site a payment was sent ("I\'ve sent payment")',
    description:
      'Own `userId` only, exact plan amount, optional 64-hex transaction hash; a hash used by any earlier payment is a 409. Waits for an admin to verify it.',
    tags: ['billing'],
    access: 'member',
    admit: payer,
    body: submitSchema,
    ok: { 201: submittedPaymentSchema },
    errors: [404, 409],
  } satisfies RouteDoc;

  for (const [path, doc] of [
    ['/payments/create-subscription-intent', intentDoc],
    ['/subscriptions/create', { ...intentDoc, summary: `${intentDoc.summary} (card-era alias)` }],
  ] as const)
    api.post(path, describe(doc), async function createIntent(c) {
      const body = c.req.valid('json');
      const planType = (body.planType ?? body.planId) as PlanType;
      const { created, payment } = valueOr(await requestPayment(ctx, userOf(c), planType, callerOf(c)));
      return ok(c, paymentRequestDto(ctx.site, payment), created ? 201 : 200);
    });

  const pendingDoc = describe({
    summary: "The caller's payments waiting for verification, and what the chain shows of them",
    description:
      "Oldest first. `received` says what the site's Bitcoin node saw paying the request (null without a node, or before); a payment the member never submitted appears once the chain shows it paid.",
    tags: ['billing'],
    access: 'member',
    ok: { 200: memberPendingPaymentsSchema },
  });
  api.get('/payments/pending', pendingDoc, async function listMyPendingPayments(c) {
    return ok(c, { payments: await memberPendingPayments(ctx.db, userOf(c).id, nodeConfigured(ctx.env)) });
  });

  for (const [path, doc] of [
    ['/payments/submit-bitcoin-payment', submitDoc],
    [
      '/payments/confirm-subscription',
      {
        ...submitDoc,
        summary: `${submitDoc.summary} (card-era alias; \`userId\` defaults to the caller)`,
        body: submitSchema.partial({ userId: true }),
      },
    ],
  ] as const)
    api.post(path, describe(doc), async function submit(c) {
      const user = userOf(c);
      const { userId = user.id, planType, btcAmount, transactionHash } = c.req.valid('json');
      const payment = valueOr(await submitPayment(ctx, user, { userId, planType, btcAmount, transactionHash }, callerOf(c)));
      return ok(c, submittedPaymentDto(ctx.site, payment), 201);
    });
};
