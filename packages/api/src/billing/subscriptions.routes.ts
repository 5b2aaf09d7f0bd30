/** Plans and the member's own subscription: read it, cancel at period end, reactivate. */
import { currentSubscriptionSchema, plansAnswerSchema } from '@members/ui/api/schemas';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireUser } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe, type RouteDoc } from '../http/openapi.js';
import { idSchema, jsonBody } from '../http/validate.js';
import { allPlans } from './plans.js';
import { cancelSubscription, currentSubscription, reactivateSubscription } from './subscriptions.service.js';

const cancelSchema = z.object({ subscriptionId: idSchema.optional() });
const reactivateSchema = z.object({ subscriptionId: idSchema });

export function subscriptionRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const listPlansDoc = describe({
    summary: 'The plans and their prices',
    tags: ['billing'],
    access: 'public',
    ok: { 200: plansAnswerSchema },
  });
  const cancelDoc = describe({
    summary: 'Cancel my subscription at the end of its period',
    tags: ['billing'],
    access: 'member',
    body: cancelSchema,
    ok: { 200: currentSubscriptionSchema },
    errors: [404, 409],
  });
  const reactivateDoc = describe({
    summary: 'Undo a cancellation before the period ends',
    tags: ['billing'],
    access: 'member',
    body: reactivateSchema,
    ok: { 200: currentSubscriptionSchema },
    errors: [404, 409],
  });

  api.get('/subscriptions/plans', listPlansDoc, function listPlans(c) {
    return ok(c, { plans: allPlans(ctx.site), paymentMethods: ['bitcoin'], bitcoinNetwork: ctx.site.bitcoin.network });
  });

  async function current(c: Context<AppEnv>) {
    const user = await requireUser(ctx, c);
    return ok(c, await currentSubscription(ctx, user.id));
  }
  const currentDoc: RouteDoc = {
    summary: 'My subscription (null when I never had one)',
    tags: ['billing'],
    access: 'member',
    ok: { 200: currentSubscriptionSchema },
  };
  api.get('/payments/subscription', describe(currentDoc), current);
  api.get('/subscriptions/current', describe({ ...currentDoc, summary: `${currentDoc.summary} (alias)` }), current);

  api.post('/subscriptions/cancel', cancelDoc, async function cancel(c) {
    const user = await requireUser(ctx, c);
    const body = await jsonBody(c, cancelSchema);
    return ok(c, valueOr(await cancelSubscription(ctx, user.id, body.subscriptionId, { actorId: user.id, requestId: c.get('requestId') })));
  });

  api.post('/payments/reactivate-subscription', reactivateDoc, async function reactivate(c) {
    const user = await requireUser(ctx, c);
    const body = await jsonBody(c, reactivateSchema);
    return ok(
      c,
      valueOr(await reactivateSubscription(ctx, user.id, body.subscriptionId, { actorId: user.id, requestId: c.get('requestId') })),
    );
  });
}
