/**
 * A member's subscription, one stream per member: `subscription-{userId}`. The stream holds every
 * subscription the member ever had in order; each activation (first payment, or a payment after
 * the previous one ended) starts a new subscription id, renewals extend the current one. One stream
 * per member lets optimistic concurrency keep "one current subscription per member" true.
 *
 * States (section 4): active → (cancel requested → reactivated)* → at period end canceled, or
 * past_due for the grace period (access continues) → unpaid. A verified payment activates
 * (none/canceled/unpaid) or renews from the current end (active/past_due), never shortening.
 * Erasing the member's account ends a subscription that still grants access at once
 * (`SubscriptionCanceled` with reason `account_erased`; the snapshot keeps the paid period as the
 * ledger knows it), and no later payment activates one for the erased account.
 */
import { accept, type Decider, reject } from '../shared/decider.js';
import { addDays, type PlanType, periodEnd } from './plans.js';

export type SubscriptionStatus = 'active' | 'canceled' | 'past_due' | 'unpaid';

/** Fields every subscription event carries, so an auditor reads each one on its own. */
type Snapshot = {
  subscriptionId: string;
  userId: string;
  planType: PlanType;
  periodStart: string;
  periodEnd: string;
  /** The payment that paid for the period (the last one applied). */
  paymentId: string;
  amountSats: number;
};

export type SubscriptionEvent =
  | { type: 'SubscriptionActivated'; data: Snapshot & { activatedAt: string } }
  | { type: 'SubscriptionRenewed'; data: Snapshot & { previousPeriodEnd: string; renewedAt: string } }
  | { type: 'SubscriptionCancelRequested'; data: Snapshot & { requestedAt: string } }
  | { type: 'SubscriptionReactivated'; data: Snapshot & { reactivatedAt: string } }
  | { type: 'SubscriptionPastDue'; data: Snapshot & { graceUntil: string; pastDueAt: string } }
  | { type: 'SubscriptionUnpaid'; data: Snapshot & { unpaidAt: string } }
  | { type: 'SubscriptionCanceled'; data: Snapshot & { reason: SubscriptionCancelReason; canceledAt: string } };

/**
 * Why a subscription ended as canceled: the member's cancellation reached the period end, or the
 * member's account was erased (the subscription ends then, whatever was paid; the payments stay in the books).
 */
export type SubscriptionCancelReason = 'canceled_at_period_end' | 'account_erased';

export const SUBSCRIPTION_EVENT_TYPES = [
  'SubscriptionActivated',
  'SubscriptionRenewed',
  'SubscriptionCancelRequested',
  'SubscriptionReactivated',
  'SubscriptionPastDue',
  'SubscriptionUnpaid',
  'SubscriptionCanceled',
] as const;

export type SubscriptionCommand =
  | {
      type: 'ApplyVerifiedPayment';
      userId: string;
      newSubscriptionId: string;
      paymentId: string;
      planType: PlanType;
      amountSats: number;
      now: string;
    }
  | { type: 'RequestCancel'; subscriptionId?: string; now: string }
  | { type: 'Reactivate'; subscriptionId: string; now: string }
  | { type: 'AdvanceLifecycle'; now: string; graceDays: number }
  /** The member's account was erased: a subscription that grants access ends now. */
  | { type: 'EndForErasure'; now: string };

export interface SubscriptionState {
  status: SubscriptionStatus | 'none';
  current?: Snapshot;
  cancelAtPeriodEnd: boolean;
  graceUntil?: string;
  appliedPayments: string[];
  /** Ended by the member's erasure: nothing activates a subscription on this stream again. */
  erased?: boolean;
}

export const subscriptionStreamId = (userId: string) => `subscription-${userId}`;

/** Whether a status lets the member watch premium content: active, or past due within the grace period. */
export const grantsAccess = (status: SubscriptionStatus | 'none' | null | undefined): boolean =>
  status === 'active' || status === 'past_due';

/** What activating a subscription for an erased account answers. */
export const ERASED_ACCOUNT = "This member's account was erased; no subscription can be activated for it";

const after = (now: string, iso: string) => new Date(now).getTime() >= new Date(iso).getTime();

function decide(command: SubscriptionCommand, state: SubscriptionState) {
  const cur = state.current;
  switch (command.type) {
    case 'ApplyVerifiedPayment': {
      if (state.appliedPayments.includes(command.paymentId)) return accept<SubscriptionEvent>(); // already applied
      if (state.erased) return reject('subscription.state_conflict', ERASED_ACCOUNT);
      const paid = { paymentId: command.paymentId, amountSats: command.amountSats, planType: command.planType };
      if (!cur || state.status === 'canceled' || state.status === 'unpaid') {
        const start = command.now;
        return accept<SubscriptionEvent>({
          type: 'SubscriptionActivated',
          data: {
            subscriptionId: command.newSubscriptionId,
            userId: command.userId,
            ...paid,
            periodStart: start,
            periodEnd: periodEnd(start, command.planType),
            activatedAt: command.now,
          },
        });
      }
      // Renewal: the new period starts where the paid one ends, so nothing already paid is lost.
      return accept<SubscriptionEvent>({
        type: 'SubscriptionRenewed',
        data: {
          ...cur,
          ...paid,
          periodEnd: periodEnd(cur.periodEnd, command.planType),
          previousPeriodEnd: cur.periodEnd,
          renewedAt: command.now,
        },
      });
    }
    case 'RequestCancel': {
      if (!cur || (command.subscriptionId && command.subscriptionId !== cur.subscriptionId))
        return reject('subscription.not_found', 'Subscription not found');
      if (state.status !== 'active')
        return reject('subscription.state_conflict', `Only an active subscription can be canceled (this one is ${state.status})`);
      if (state.cancelAtPeriodEnd)
        return reject('subscription.state_conflict', 'Your subscription is already set to cancel at the end of the current period');
      return accept<SubscriptionEvent>({ type: 'SubscriptionCancelRequested', data: { ...cur, requestedAt: command.now } });
    }
    case 'Reactivate': {
      if (!cur || command.subscriptionId !== cur.subscriptionId) return reject('subscription.not_found', 'Subscription not found');
      if (state.status !== 'active')
        return reject(
          'subscription.state_conflict',
          `This subscription is ${state.status} and cannot be reactivated; please subscribe again`,
        );
      if (!state.cancelAtPeriodEnd)
        return reject('subscription.state_conflict', 'Your subscription is not set to cancel, so there is nothing to reactivate');
      return accept<SubscriptionEvent>({ type: 'SubscriptionReactivated', data: { ...cur, reactivatedAt: command.now } });
    }
    case 'AdvanceLifecycle': {
      if (!cur) return accept<SubscriptionEvent>();
      const { now } = command;
      if (state.status === 'active' && after(now, cur.periodEnd)) {
        if (state.cancelAtPeriodEnd)
          return accept<SubscriptionEvent>({
            type: 'SubscriptionCanceled',
            data: { ...cur, reason: 'canceled_at_period_end', canceledAt: now },
          });
        const graceUntil = addDays(cur.periodEnd, command.graceDays);
        const pastDue: SubscriptionEvent = { type: 'SubscriptionPastDue', data: { ...cur, graceUntil, pastDueAt: now } };
        if (!after(now, graceUntil)) return accept(pastDue);
        return accept<SubscriptionEvent>(pastDue, { type: 'SubscriptionUnpaid', data: { ...cur, unpaidAt: now } });
      }
      if (state.status === 'past_due' && state.graceUntil && after(now, state.graceUntil))
        return accept<SubscriptionEvent>({ type: 'SubscriptionUnpaid', data: { ...cur, unpaidAt: now } });
      return accept<SubscriptionEvent>();
    }
    case 'EndForErasure': {
      if (!cur || !grantsAccess(state.status)) return accept<SubscriptionEvent>();
      return accept<SubscriptionEvent>({
        type: 'SubscriptionCanceled',
        data: { ...cur, reason: 'account_erased', canceledAt: command.now },
      });
    }
  }
}

function snapshot(d: Snapshot): Snapshot {
  const { subscriptionId, userId, planType, periodStart, periodEnd, paymentId, amountSats } = d;
  return { subscriptionId, userId, planType, periodStart, periodEnd, paymentId, amountSats };
}

function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  const current = snapshot(event.data);
  switch (event.type) {
    case 'SubscriptionActivated':
      return { status: 'active', current, cancelAtPeriodEnd: false, appliedPayments: [...state.appliedPayments, current.paymentId] };
    case 'SubscriptionRenewed':
      // Paying again also withdraws a pending cancellation: the member chose to continue.
      return { status: 'active', current, cancelAtPeriodEnd: false, appliedPayments: [...state.appliedPayments, current.paymentId] };
    case 'SubscriptionCancelRequested':
      return { ...state, current, cancelAtPeriodEnd: true };
    case 'SubscriptionReactivated':
      return { ...state, current, cancelAtPeriodEnd: false };
    case 'SubscriptionPastDue':
      return { ...state, current, status: 'past_due', graceUntil: event.data.graceUntil };
    case 'SubscriptionUnpaid':
      return { ...state, current, status: 'unpaid', graceUntil: undefined };
    case 'SubscriptionCanceled':
      return {
        ...state,
        current,
        status: 'canceled',
        cancelAtPeriodEnd: false,
        ...(event.data.reason === 'account_erased' ? { erased: true } : {}),
      };
    default:
      return state;
  }
}

export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState> = {
  initialState: () => ({ status: 'none', cancelAtPeriodEnd: false, appliedPayments: [] }),
  decide,
  evolve,
};
