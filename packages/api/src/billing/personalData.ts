/**
 * Billing's part of a member's data rights (AppModule.exportPersonalData, erasePersonalData; the
 * privacy module runs them). The export: their payments, their subscription as it stands and its
 * periods (the `subscription-{userId}` stream). The erasure: open payments canceled and a
 * subscription still granting access ended, as billing events (erasure.ts); the payments themselves
 * stay for the books, their personal columns blanked by the projection.
 */
import { satsToBtc } from '@members/ui/money';
import type { AppContext } from '../kernel/context.js';
import type { ErasedMember, MemberExport } from '../kernel/module.js';
import { eventMetadata } from '../shared/eventMetadata.js';
import { closeBillingOfErasedMember } from './erasure.js';
import { subscriptionStreamId } from './subscription.decider.js';

export async function exportBillingData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const payments = await ctx.db.all<Record<string, unknown>>(
    'SELECT * FROM billing_payments WHERE user_id = ? ORDER BY COALESCE(requested_at, submitted_at), id',
    [userId],
  );
  const subscription = await ctx.db.get<Record<string, unknown>>('SELECT * FROM billing_subscriptions WHERE user_id = ?', [userId]);
  const periods = await ctx.store.readStream(subscriptionStreamId(userId));
  return {
    payments: payments.map((p) => ({
      id: p.id,
      planType: p.plan_type,
      amountSats: Number(p.amount_sats),
      btcAmount: satsToBtc(Number(p.amount_sats)),
      status: p.status,
      address: p.address ?? null,
      transactionHash: p.tx_hash ?? null,
      requestedAt: p.requested_at ?? null,
      submittedAt: p.submitted_at ?? null,
      verifiedAt: p.verified_at ?? null,
      rejectedAt: p.rejected_at ?? null,
      rejectReason: p.reject_reason ?? null,
    })),
    subscription: subscription
      ? {
          id: subscription.subscription_id,
          planType: subscription.plan_type,
          status: subscription.status,
          cancelAtPeriodEnd: Number(subscription.cancel_at_period_end) === 1,
          currentPeriodStart: subscription.current_period_start,
          currentPeriodEnd: subscription.current_period_end,
        }
      : null,
    subscriptionPeriods: periods.map((e) => {
      const d = e.data as Record<string, unknown>;
      return {
        at: e.metadata.at ?? e.recordedAt,
        event: e.type,
        planType: String(d.planType ?? ''),
        periodStart: String(d.periodStart ?? ''),
        periodEnd: String(d.periodEnd ?? ''),
        paymentId: String(d.paymentId ?? ''),
      };
    }),
  };
}

/**
 * Verifying a payment of an erased member is refused already (payments.service.ts); if closing their
 * billing fails here, the lifecycle pass finishes it, so the erasure goes on.
 */
export async function eraseBillingData(ctx: AppContext, member: ErasedMember): Promise<Record<string, number>> {
  const closed = await closeBillingOfErasedMember(ctx, member.userId, eventMetadata(ctx, member.caller)).catch((err) => {
    ctx.logger.warn({ err, userId: member.userId }, 'could not close the billing of an erased member yet; the lifecycle pass will');
    return { canceledPayments: 0, endedSubscriptions: 0 };
  });
  return { ...closed };
}
