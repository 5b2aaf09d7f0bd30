/** The billing aggregates' command handlers (eventstore/commandHandler.ts): each decider bound to its stream once. */
import { aggregate } from '../eventstore/commandHandler.js';
import { paymentDecider, paymentStreamId } from './payment.decider.js';
import { subscriptionDecider, subscriptionStreamId } from './subscription.decider.js';

export const payments = aggregate(paymentDecider, paymentStreamId);
/** Renewals, erasure and grants race on one member's subscription: more decisions again than the default. */
export const subscriptions = aggregate(subscriptionDecider, subscriptionStreamId, { retries: 50 });
