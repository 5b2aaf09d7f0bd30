/** Plans and the member's own subscription: read it, cancel at period end, reactivate. */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireUser } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { idSchema, jsonBody } from '../http/validate.js';
import { allPlans } from './plans.js';
import { cancelSubscription, currentSubscription, reactivateSubscription } from './subscriptions.service.js';

const cancelSchema = z.object({ subscriptionId: idSchema.optional() });
const reactivateSchema = z.object({ subscriptionId: idSchema });

export function subscriptionRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/subscriptions/plans', function listPlans(c) {
    return ok(c, { plans: allPlans(ctx.site), paymentMethods: ['bitcoin'], bitcoinNetwork: ctx.site.bitcoin.network });
  });

  async function current(c: Context<AppEnv>) {
    const user = await requireUser(ctx, c);
    return ok(c, await currentSubscription(ctx, user.id));
  }
  api.get('/payments/subscription', current);
  api.get('/subscriptions/current', current);

  api.post('/subscriptions/cancel', async function cancel(c) {
    const user = await requireUser(ctx, c);
    const body = await jsonBody(c, cancelSchema);
    return ok(c, valueOr(await cancelSubscription(ctx, user.id, body.subscriptionId, { actorId: user.id, requestId: c.get('requestId') })));
  });

  api.post('/payments/reactivate-subscription', async function reactivate(c) {
    const user = await requireUser(ctx, c);
    const body = await jsonBody(c, reactivateSchema);
    return ok(
      c,
      valueOr(await reactivateSubscription(ctx, user.id, body.subscriptionId, { actorId: user.id, requestId: c.get('requestId') })),
    );
  });
}
