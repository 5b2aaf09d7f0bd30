/**
 * What erasing a member means for billing: their open payments (requested or submitted) are
 * canceled (`PaymentCanceled`, reason `account_erased`) so no admin can verify them afterwards, and a
 * subscription that still grants access ends (`SubscriptionCanceled`, reason `account_erased`).
 * Both are events on billing's own streams, so the books an auditor replays show why the payment
 * never became revenue and why the paid period stopped early; verified payments stay as they are.
 *
 * The erasure calls `closeBillingOfErasedMember` right after `MemberErased` (personalData.ts). The lifecycle
 * pass (`runLifecycle`) calls `closeBillingOfErasedMembers` too: it finishes what a crash between
 * the appends left open, catches a verification that raced the erasure, and closes what erasures
 * made before this rule existed left open.
 */

import { allIn } from '../db/inChunks.js';
import type { EventMetadata } from '../eventstore/types.js';
import { erasedUserIds } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { payments, subscriptions } from './billing.commands.js';

export interface ClosedBilling {
  canceledPayments: number;
  endedSubscriptions: number;
}

/** Cancels the member's open payments and ends their subscription; safe to run again (adds nothing then). */
export async function closeBillingOfErasedMember(ctx: AppContext, userId: string, meta: EventMetadata): Promise<ClosedBilling> {
  const out: ClosedBilling = { canceledPayments: 0, endedSubscriptions: 0 };
  const open = await ctx.db.all<{ id: string }>(
    `SELECT id FROM billing_payments WHERE user_id = ? AND status IN ('requested', 'submitted') ORDER BY id`,
    [userId],
  );
  const canceledBy = meta.actorId ?? 'system';
  for (const { id } of open) {
    const r = await payments(ctx.store).handle(
      id,
      { type: 'CancelPayment', paymentId: id, reason: 'account_erased', canceledBy, now: meta.at },
      meta,
      { retries: 50 },
    );
    if (!r.ok) throw new Error(`could not cancel payment ${id} of erased member ${userId}: ${r.error.message}`);
    out.canceledPayments += r.events.length;
  }
  const ended = await subscriptions(ctx.store).handle(userId, { type: 'EndForErasure', now: meta.at }, meta);
  if (!ended.ok) throw new Error(`could not end the subscription of erased member ${userId}: ${ended.error.message}`);
  out.endedSubscriptions += ended.events.length;
  return out;
}

/** Erased members that still have an open payment or a subscription granting access (the lifecycle's sweep). */
export async function closeBillingOfErasedMembers(ctx: AppContext, meta: EventMetadata): Promise<ClosedBilling> {
  // Erased accounts are few beside paying ones: ask identity for them, then look for their open billing.
  const rows = await allIn<{ user_id: string }>(
    ctx.db,
    await erasedUserIds(ctx.db),
    (marks) =>
      `SELECT user_id FROM billing_payments WHERE user_id IN (${marks}) AND status IN ('requested', 'submitted')
       UNION
       SELECT user_id FROM billing_subscriptions WHERE user_id IN (${marks}) AND status IN ('active', 'past_due')`,
    2,
  );
  const out: ClosedBilling = { canceledPayments: 0, endedSubscriptions: 0 };
  for (const { user_id } of rows) {
    const r = await closeBillingOfErasedMember(ctx, user_id, meta);
    out.canceledPayments += r.canceledPayments;
    out.endedSubscriptions += r.endedSubscriptions;
  }
  return out;
}
