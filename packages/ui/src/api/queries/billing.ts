/** Billing queries: the keys and fetchers of the plans and the member's subscription. */
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../client';

export const billingKeys = {
  plans: ['plans'] as const,
  subscription: ['subscription'] as const,
  myPendingPayments: ['subscription', 'pendingPayments'] as const,
};

export function billingQueries(api: ApiClient) {
  return {
    plans: () => queryOptions({ queryKey: billingKeys.plans, queryFn: () => api.plans() }),
    subscription: () => queryOptions({ queryKey: billingKeys.subscription, queryFn: () => api.getSubscription() }),
    myPendingPayments: () => queryOptions({ queryKey: billingKeys.myPendingPayments, queryFn: () => api.myPendingPayments() }),
  };
}
