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
import { badRequest, forbidden, ok } from '../http/envelope.js';
import { jsonBody } from '../http/validate.js';
import { parseBtc } from '../shared/money.js';
import { requestPayment, requireApproved, submitPayment } from './payments.service.js';
import { PLAN_TYPES, type PlanType, planOf } from './plans.js';
import { paymentRequestDto } from './readModels.js';

const planType = z.enum(PLAN_TYPES, { error: 'must be monthly or annual' });

const intentSchema = z
  .object({ planType: planType.optional(), planId: planType.optional(), paymentMethodId: z.unknown().optional() })
  .refine((b) => b.planType ?? b.planId, { message: 'must be monthly or annual', path: ['planType'] });

const txHash = z
  .string({ error: 'must be a string' })
  .nullish()
  .transform((v) => v?.trim() || undefined)
  .refine((v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v), 'must be 64 hexadecimal characters')
  .transform((v) => v?.toLowerCase());

const submitSchema = (defaultUserId?: string) =>
  z.object({
    userId: defaultUserId ? z.string().default(defaultUserId) : z.string({ error: 'is required' }).min(1, 'is required'),
    planType,
    btcAmount: z
      .union([z.string(), z.number()], { error: 'is required (a BTC amount such as "0.005")' })
      .transform((v) => String(v).trim()),
    transactionHash: txHash,
  });

export function paymentRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  async function createIntent(c: Context<AppEnv>) {
    const user = await requireUser(ctx, c);
    requireApproved(user);
    const body = await jsonBody(c, intentSchema);
    const { created, payment } = await requestPayment(ctx, user, (body.planType ?? body.planId) as PlanType, c.get('requestId'));
    return ok(c, paymentRequestDto(ctx.site, payment), created ? 201 : 200);
  }

  async function submit(c: Context<AppEnv>, userIdOptional: boolean) {
    const user = await requireUser(ctx, c);
    requireApproved(user);
    const body = await jsonBody(c, submitSchema(userIdOptional ? user.id : undefined));
    if (body.userId !== user.id) throw forbidden('You can only submit payments for your own account');
    const plan = planOf(ctx.site, body.planType);
    const sats = parseBtc(body.btcAmount);
    if (sats === undefined) throw badRequest('btcAmount: must be a BTC amount such as "0.005"');
    if (sats !== plan.amountSats) throw badRequest(`btcAmount: must be exactly ${plan.btcAmount} BTC for the ${plan.name} plan`);
    const p = await submitPayment(
      ctx,
      user,
      { planType: body.planType, amountSats: sats, txHash: body.transactionHash },
      c.get('requestId'),
    );
    return ok(
      c,
      {
        paymentId: p.id,
        status: 'pending',
        planType: p.plan_type,
        btcAmount: plan.btcAmount,
        submittedDate: p.submitted_at,
        ...(p.tx_hash ? { transactionHash: p.tx_hash } : {}),
        ...(p.address ? { address: p.address } : {}),
      },
      201,
    );
  }

  api.post('/payments/create-subscription-intent', createIntent);
  api.post('/subscriptions/create', createIntent);
  api.post('/payments/submit-bitcoin-payment', (c) => submit(c, false));
  api.post('/payments/confirm-subscription', (c) => submit(c, true));
}
