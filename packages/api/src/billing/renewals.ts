/**
 * Renewals: a subscription that renews asks for its next payment before its period ends, instead of
 * lapsing silently. Run by the lifecycle pass (`runLifecycle`, every minute on the leader):
 * 1. an active or past-due subscription not set to cancel that enters the notice window
 *    (`renewals.noticeDays` of the site config, default 7) gets a renewal payment request — the same
 *    `PaymentRequested` as a member's, with `renewal: { subscriptionId, periodEnd }`, a fresh address
 *    in xpub mode, expiring at the period end plus the grace period — and the member is mailed
 *    (billing.mail.ts); it is what `create-subscription-intent` answers for that plan while open;
 * 2. an open renewal nobody paid is reminded once the day before the period ends and once when the
 *    subscription goes past due (`PaymentRenewalReminded`, each kind once: the payment decider);
 * and on the member's cancel at period end, the open renewal request closes (`PaymentCanceled`,
 * reason `subscription_canceled`). Paying it (verified as any payment) renews from the old end.
 */

import type { EventMetadata } from '../eventstore/types.js';
import type { AppContext } from '../kernel/context.js';
import { successOrThrow } from '../shared/result.js';
import { receivingAddressFor } from './addressAllocator.js';
import { payments } from './billing.commands.js';
import { bip21Uri } from './bitcoinAddress.js';
import type { RenewalReminderKind } from './payment.decider.js';
import { addDays, planOf } from './plans.js';
import { openRenewals, renewalOf, type SubscriptionRow, subscriptionsToRenew } from './readModels.js';

/** Opens the renewal requests of subscriptions that entered the notice window; answers how many. */
export async function openDueRenewals(ctx: AppContext, meta: EventMetadata): Promise<number> {
  const now = meta.at;
  const due = await subscriptionsToRenew(ctx.db, addDays(now, ctx.site.renewals.noticeDays), now);
  for (const sub of due) await openRenewal(ctx, sub, meta);
  return due.length;
}

async function openRenewal(ctx: AppContext, sub: SubscriptionRow, meta: EventMetadata): Promise<void> {
  const plan = planOf(ctx.site, sub.plan_type);
  const paymentId = ctx.ids.next();
  const { address, addressIndex } = await receivingAddressFor(ctx, paymentId, sub.user_id);
  successOrThrow(
    await payments(ctx.store).handle(
      paymentId,
      {
        type: 'RequestPayment',
        data: {
          paymentId,
          userId: sub.user_id,
          planType: sub.plan_type,
          amountSats: plan.amountSats,
          address,
          ...(addressIndex === undefined ? {} : { addressIndex }),
          bip21Uri: bip21Uri(address, plan.btcAmount, `${ctx.site.siteName} ${plan.name} renewal`),
          renewal: { subscriptionId: sub.subscription_id, periodEnd: sub.current_period_end },
          // Open until access would end anyway: the period's end plus the grace period.
          expiresAt: addDays(sub.current_period_end, ctx.env.GRACE_PERIOD_DAYS),
        },
        now: meta.at,
      },
      meta,
    ),
    'billing renewals',
  );
}

/** Which reminder an open renewal is due, if any: past due first (it says more), else the day before the end. */
export function reminderDue(
  renewal: { renewal_period_end: string | null; renewal_reminders: string | null; subscription_status: string },
  now: string,
): RenewalReminderKind | undefined {
  const sent = renewal.renewal_reminders ?? '';
  if (renewal.subscription_status === 'past_due') return sent.includes('past_due;') ? undefined : 'past_due';
  if (!renewal.renewal_period_end || sent.includes('day_before;')) return undefined;
  return addDays(renewal.renewal_period_end, -1) <= now ? 'day_before' : undefined;
}

/** Reminds the members whose renewal is due tomorrow or overdue; answers how many reminders went out. */
export async function remindRenewals(ctx: AppContext, meta: EventMetadata): Promise<number> {
  let sent = 0;
  for (const r of await openRenewals(ctx.db, meta.at)) {
    const kind = reminderDue(r, meta.at);
    if (!kind) continue;
    const result = await payments(ctx.store).handle(r.id, { type: 'RemindRenewal', paymentId: r.id, kind, now: meta.at }, meta);
    successOrThrow(result, 'billing renewals');
    if (result.ok && result.events.length) sent++;
  }
  return sent;
}

/** The member set their subscription to cancel at period end: its open renewal request closes (not one already submitted). */
export async function closeRenewalOnCancel(ctx: AppContext, sub: SubscriptionRow, meta: EventMetadata): Promise<void> {
  const open = await renewalOf(ctx.db, sub, meta.at);
  if (open?.status !== 'requested') return;
  successOrThrow(
    await payments(ctx.store).handle(
      open.id,
      { type: 'CancelPayment', paymentId: open.id, reason: 'subscription_canceled', canceledBy: meta.actorId ?? sub.user_id, now: meta.at },
      meta,
    ),
    'billing renewals',
  );
}
