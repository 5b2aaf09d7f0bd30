/** The subscription status badge of spec §4: cancel-at-period-end wins over the status. */

export type BadgeTone = 'success' | 'warning' | 'danger' | 'info' | 'neutral';

export interface SubscriptionLike {
  status: string;
  cancelAtPeriodEnd?: boolean | null;
}

/**
 * Label and tone of a subscription's badge.
 * @example subscriptionBadge({ status: 'active', cancelAtPeriodEnd: true }) // { label: 'Canceling at period end', tone: 'warning' }
 */
export function subscriptionBadge(sub: SubscriptionLike): { label: string; tone: BadgeTone } {
  if (sub.cancelAtPeriodEnd) return { label: 'Canceling at period end', tone: 'warning' };
  switch (sub.status) {
    case 'active':
      return { label: 'Active', tone: 'success' };
    case 'canceled':
      return { label: 'Canceled', tone: 'neutral' };
    case 'past_due':
      return { label: 'Past Due', tone: 'danger' };
    case 'unpaid':
      return { label: 'Unpaid', tone: 'danger' };
    default:
      return { label: sub.status, tone: 'neutral' };
  }
}

/** Which action the My Subscription tab offers (spec §4). */
export function subscriptionAction(sub: SubscriptionLike): 'cancel' | 'reactivate' | null {
  if (sub.cancelAtPeriodEnd) return 'reactivate';
  if (sub.status === 'active') return 'cancel';
  return null;
}
