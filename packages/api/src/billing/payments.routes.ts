/**
 * Member payment routes (Bitcoin only). The spec's card-era calls map onto the Bitcoin flow:
 * - POST /subscriptions/create {planId|planType}       = POST /payments/create-subscription-intent {planType}
 *   (a payment request: address, BTC amount, BIP21 URI, expiry; the open one is returned again);
 * - POST /payments/confirm-subscription {same as submit} = POST /payments/submit-bitcoin-payment
 *   (the member says "I've sent payment"; `userId` may be left out and defaults to the caller).
 * `paymentMethodId` is accepted and ignored: nothing card-based exists.
 */
import { paymentRequestSchema, paymentSubmissionSchema, requestedPlanTypeSchema, submittedPaymentSchema } from '@members/ui/api/schemas';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireUser } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe, type RouteDoc } from '../http/openapi.js';
import { jsonBody } from '../http/validate.js';
import { payerRefusal, requestPayment, submitPayment } from './payments.service.js';
import type { PlanType } from './plans.js';
import { paymentRequestDto, submittedPaymentDto } from './readModels.js';

const planType = requestedPlanTypeSchema;

const intentSchema = z
  .object({ planType: planType.optional(), planId: planType.optional(), paymentMethodId: z.unknown().optional() })
  .refine((b) => b.planType ?? b.planId, { message: 'must be monthly or annual', path: ['planType'] });

/** Shapes only (shared with the clients): the submission rules (own account, exact price, the hash's form) are the service's. */
const submitSchema = (defaultUserId?: string) =>
  defaultUserId ? paymentSubmissionSchema.extend({ userId: z.string().default(defaultUserId) }) : paymentSubmissionSchema;

export function paymentRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  /** The signed-in member, refused before their body is read when they may not pay yet. */
  async function payer(c: Context<AppEnv>) {
    const user = await requireUser(ctx, c);
    const refused = payerRefusal(user);
    if (refused) throw new HttpError(refused.error);
    return user;
  }

  async function createIntent(c: Context<AppEnv>) {
    const user = await payer(c);
    const body = await jsonBody(c, intentSchema);
    const caller = { actorId: user.id, requestId: c.get('requestId') };
    const { created, payment } = valueOr(await requestPayment(ctx, user, (body.planType ?? body.planId) as PlanType, caller));
    return ok(c, paymentRequestDto(ctx.site, payment), created ? 201 : 200);
  }

  async function submit(c: Context<AppEnv>, userIdOptional: boolean) {
    const user = await payer(c);
    const body = await jsonBody(c, submitSchema(userIdOptional ? user.id : undefined));
    const { userId, planType, btcAmount, transactionHash } = body;
    const caller = { actorId: user.id, requestId: c.get('requestId') };
    const payment = valueOr(await submitPayment(ctx, user, { userId, planType, btcAmount, transactionHash }, caller));
    return ok(c, submittedPaymentDto(ctx.site, payment), 201);
  }

  const intentDoc: RouteDoc = {
    summary: 'Open a Bitcoin payment request for a plan',
    description:
      'Address, BTC amount, BIP21 URI and expiry; 201 when created, 200 with the open one when it exists. Approved members only (403 otherwise). `planId` is an alias of `planType`; `paymentMethodId` is ignored.',
    tags: ['billing'],
    access: 'member',
    body: intentSchema,
    ok: { 200: paymentRequestSchema, 201: paymentRequestSchema },
    errors: [409],
  };
  const submitDoc: RouteDoc = {
    summary: 'Tell the site a payment was sent ("I\'ve sent payment")',
    description:
      'Own `userId` only, exact plan amount, optional 64-hex transaction hash; a hash used by any earlier payment is a 409. Waits for an admin to verify it.',
    tags: ['billing'],
    access: 'member',
    body: paymentSubmissionSchema,
    ok: { 201: submittedPaymentSchema },
    errors: [404, 409],
  };
  api.post('/payments/create-subscription-intent', describe(intentDoc), createIntent);
  api.post('/subscriptions/create', describe({ ...intentDoc, summary: `${intentDoc.summary} (card-era alias)` }), createIntent);
  api.post('/payments/submit-bitcoin-payment', describe(submitDoc), (c) => submit(c, false));
  api.post(
    '/payments/confirm-subscription',
    describe({
      ...submitDoc,
      summary: `${submitDoc.summary} (card-era alias; \`userId\` defaults to the caller)`,
      body: paymentSubmissionSchema.partial({ userId: true }),
    }),
    (c) => submit(c, true),
  );
}
