/** Plans and the member's own subscription: read it, cancel at period end, reactivate. */
import { currentSubscriptionSchema, plansAnswerSchema } from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe, type RouteDoc } from '../http/openapi.js';
import { idSchema } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { allPlans } from './plans.js';
import { cancelSubscription, currentSubscription, reactivateSubscription } from './subscriptions.service.js';

const cancelSchema = z.object({ subscriptionId: idSchema.optional() });
const reactivateSchema = z.object({ subscriptionId: idSchema });

export const subscriptionRoutes: Routes = (api, ctx) => {
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
    return ok(c, await currentSubscription(ctx, userOf(c).id));
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
    return ok(c, valueOr(await cancelSubscription(ctx, userOf(c).id, c.req.valid('json').subscriptionId, callerOf(c))));
  });

  api.post('/payments/reactivate-subscription', reactivateDoc, async function reactivate(c) {
    const body = c.req.valid('json');
    return ok(c, valueOr(await reactivateSubscription(ctx, userOf(c).id, body.subscriptionId, callerOf(c))));
  });
};
