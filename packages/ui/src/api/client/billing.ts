/** Billing calls: plans, subscription intents, Bitcoin payments, the member's subscription. */
import type {
  BitcoinPaymentSubmission,
  MemberPendingPayment,
  Plan,
  PlanAnswer,
  PlansAnswer,
  PlanType,
  SubmittedPayment,
  Subscription,
  SubscriptionIntent,
} from '../types';
import type { Calls } from './session';

/** GET /subscriptions/plans names the price `btcAmount` (an invoice amount); the screens call it `btcPrice` as the site config does. */
function toPlan({ btcAmount, formerBtcAmount, ...plan }: PlanAnswer): Plan {
  return { ...plan, btcPrice: btcAmount, ...(formerBtcAmount ? { formerBtcPrice: formerBtcAmount } : {}) };
}

export function billingCalls({ get, post }: Calls) {
  return {
    plans: async (): Promise<Plan[]> => (await get<PlansAnswer>('/subscriptions/plans')).plans.map(toPlan),
    createSubscriptionIntent: (planType: PlanType) => post<SubscriptionIntent>('/payments/create-subscription-intent', { planType }),
    submitBitcoinPayment: (payment: BitcoinPaymentSubmission) =>
      post<SubmittedPayment>('/payments/submit-bitcoin-payment', payment, { fallbackError: 'Failed to submit payment' }),
    getSubscription: async (): Promise<Subscription | null> =>
      (await get<Subscription | null>('/payments/subscription', { fallbackError: 'Failed to load subscription' })) ?? null,
    /** The caller's payments waiting for an admin, with what the chain received. */
    myPendingPayments: async (): Promise<MemberPendingPayment[]> =>
      (await get<{ payments: MemberPendingPayment[] }>('/payments/pending', { fallbackError: 'Failed to load your payments' })).payments,
    cancelSubscription: () => post<Subscription | null>('/subscriptions/cancel', {}, { fallbackError: 'Failed to cancel subscription' }),
    reactivateSubscription: (subscriptionId: string) =>
      post<Subscription | null>(
        '/payments/reactivate-subscription',
        { subscriptionId },
        { fallbackError: 'Failed to reactivate subscription' },
      ),
  };
}
