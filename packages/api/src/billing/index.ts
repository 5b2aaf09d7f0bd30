/**
 * The billing module: Bitcoin payments verified by hand, and the subscription lifecycle.
 *
 * Streams: `payment-{paymentId}` (PaymentRequested, PaymentSubmitted, PaymentVerified,
 * PaymentRejected, PaymentCanceled), `subscription-{userId}` (SubscriptionActivated, SubscriptionRenewed,
 * SubscriptionCancelRequested, SubscriptionReactivated, SubscriptionPastDue, SubscriptionUnpaid,
 * SubscriptionCanceled) and `address-allocator` (AddressAllocated, xpub mode only).
 * Read models: billing_payments, billing_subscriptions, billing_daily, billing_plan_daily and
 * billing_membership_spans (the per-plan monthly figures), users' subscription columns.
 * Access (users.membership_status = 'active') while the subscription is active or past due within
 * the grace period (GRACE_PERIOD_DAYS); canceled and unpaid end it.
 * `background` (leader only) runs the lifecycle scheduler (every minute) and, with a Bitcoin node
 * configured (BITCOIN_RPC_URL), the chain watcher (`chain/`: PaymentChainChecked, PaymentLeftChain);
 * tests call `runLifecycle(ctx)` directly.
 */
import type { AppModule } from '../kernel/module.js';
import { adminPaymentRoutes } from './admin.routes.js';
import { analyticsProjection } from './analytics.projection.js';
import { billingMailSubscriber } from './billing.mail.js';
import { billingProjection } from './billing.projection.js';
import { parseAccountKey } from './bitcoinAddress.js';
import { configuredChainSource, startChainWatcher } from './chain/chainWatcher.js';
import { paymentRoutes } from './payments.routes.js';
import { verifyPayment } from './payments.service.js';
import { eraseBillingData, exportBillingData } from './personalData.js';
import { planAnalyticsProjection } from './planAnalytics.projection.js';
import { subscriptionRoutes } from './subscriptions.routes.js';
import { startLifecycleScheduler } from './subscriptions.service.js';

export { outputScriptOf } from './bitcoinAddress.js';
export { type ChainSource, rpcChainSource } from './chain/bitcoinRpc.js';
export { productionBitcoinProblems } from './moneyTraps.js';
export { type PaymentVerified, paymentStreamId } from './payment.decider.js';
export { type CustomPaymentInput, onCustomPaymentVerified, openCustomRequestPayment, type Payer } from './payments.service.js';
export { CUSTOM_REQUEST_PAYMENT, type PlanType, periodEnd } from './plans.js';
export { type PaymentRow, paymentById, paymentIdsOfMember, subscriptionOf, subscriptionsOf } from './readModels.js';
export { billingStats, billingStatsFromRows } from './stats.js';
export { grantsAccess, subscriptionStreamId } from './subscription.decider.js';
export { runLifecycle } from './subscriptions.service.js';

export const billingModule: AppModule = {
  name: 'billing',
  projections: [billingProjection, analyticsProjection, planAnalyticsProjection],
  subscribers: (ctx) => [billingMailSubscriber(ctx)],
  exportPersonalData: exportBillingData,
  erasePersonalData: eraseBillingData,
  routes(api, ctx) {
    subscriptionRoutes(api, ctx);
    paymentRoutes(api, ctx);
    adminPaymentRoutes(api, ctx);
  },
  start(ctx) {
    // A wrong xpub stops the server at start with a clear message, not at the first payment request.
    const btc = ctx.site.bitcoin;
    if (btc.xpub) parseAccountKey(btc.xpub, btc.network);
    return undefined;
  },
  background(ctx) {
    const lifecycle = startLifecycleScheduler(ctx, ctx.env.LIFECYCLE_INTERVAL_SECONDS * 1000);
    const source = configuredChainSource(ctx.env);
    if (!source) return lifecycle;
    const watcher = startChainWatcher(ctx, source, verifyPayment, ctx.env.BITCOIN_POLL_SECONDS * 1000);
    return {
      async stop() {
        await watcher.stop();
        await lifecycle.stop();
      },
    };
  },
};
