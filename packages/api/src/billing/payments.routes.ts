/**
 * Member payment routes (Bitcoin only). The spec's card-era calls map onto the Bitcoin flow:
 * - POST /subscriptions/create {planId|planType}       = POST /payments/create-subscription-intent {planType}
 *   (a payment request: address, BTC amount, BIP21 URI, expiry; the open one is returned again);
 * - POST /payments/confirm-subscription {same as submit} = POST /payments/submit-bitcoin-payment
 *   (the member says "I've sent payment"; `userId` may be left out and defaults to the caller).
 * `paymentMethodId` is accepted and ignored: nothing card-based exists.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireUser } from '../http/auth.js';
import { httpErrorOf, ok, valueOr } from '../http/envelope.js';
import { jsonBody } from '../http/validate.js';
import { payerRefusal, requestPayment, submitPayment } from './payments.service.js';
import { PLAN_TYPES, type PlanType } from './plans.js';
import { paymentRequestDto, submittedPaymentDto } from './readModels.js';

const planType = z.enum(PLAN_TYPES, { error: 'must be monthly or annual' });

const intentSchema = z
  .object({ planType: planType.optional(), planId: planType.optional(), paymentMethodId: z.unknown().optional() })
  .refine((b) => b.planType ?? b.planId, { message: 'must be monthly or annual', path: ['planType'] });

/** Shapes only: the submission rules (own account, exact price, the hash's form) are the service's. */
const submitSchema = (defaultUserId?: string) =>
  z.object({
    userId: defaultUserId ? z.string().default(defaultUserId) : z.string({ error: 'is required' }).min(1, 'is required'),
    planType,
    btcAmount: z
      .union([z.string(), z.number()], { error: 'is required (a BTC amount such as "0.005")' })
      .transform((v) => String(v).trim()),
    transactionHash: z.string({ error: 'must be a string' }).nullish(),
  });

export function paymentRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  /** The signed-in member, refused before their body is read when they may not pay yet. */
  async function payer(c: Context<AppEnv>) {
    const user = await requireUser(ctx, c);
    const refused = payerRefusal(user);
    if (refused) throw httpErrorOf(refused.error);
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
    const payment = valueOr(await submitPayment(ctx, user, body, { actorId: user.id, requestId: c.get('requestId') }));
    return ok(c, submittedPaymentDto(ctx.site, payment), 201);
  }

  api.post('/payments/create-subscription-intent', createIntent);
  api.post('/subscriptions/create', createIntent);
  api.post('/payments/submit-bitcoin-payment', (c) => submit(c, false));
  api.post('/payments/confirm-subscription', (c) => submit(c, true));
}
