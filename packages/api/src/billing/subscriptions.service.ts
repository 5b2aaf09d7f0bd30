/**
 * Subscription use cases: applying a verified payment (activation or renewal), cancel at period
 * end, reactivation, and the time-driven lifecycle (`runLifecycle`, run every minute by the
 * scheduler the module starts, and directly by tests after moving the clock). The member-facing
 * use cases answer a `Result`; the lifecycle job throws, so its scheduler logs and retries.
 */

import type { EventMetadata } from '../eventstore/types.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { startPeriodic } from '../shared/periodic.js';
import { type Result, success, successOrThrow } from '../shared/result.js';
import { subscriptions } from './billing.commands.js';
import { closeBillingOfErasedMembers } from './erasure.js';
import type { PlanType } from './plans.js';
import {
  paymentRequestDto,
  renewalOf,
  type SubscriptionDto,
  subscriptionDto,
  subscriptionOf,
  subscriptionsDue,
  unappliedVerifiedPayments,
} from './readModels.js';
import { closeRenewalOnCancel, openDueRenewals, remindRenewals } from './renewals.js';
import type { SubscriptionCommand } from './subscription.decider.js';

async function run(
  ctx: AppContext,
  userId: string,
  command: SubscriptionCommand,
  meta: EventMetadata,
): Promise<Result<{ events: unknown[] }>> {
  const result = await subscriptions(ctx.store).handle(userId, command, meta);
  return result.ok ? success({ events: result.events }) : result;
}

/** The member's subscription as the API shows it, or null when they never had one. */
export async function currentSubscription(ctx: AppContext, userId: string): Promise<SubscriptionDto | null> {
  const row = await subscriptionOf(ctx.db, userId);
  if (!row) return null;
  const renewal = await renewalOf(ctx.db, row, ctx.clock.now().toISOString());
  return {
    ...subscriptionDto(ctx.site, row),
    renewal: renewal ? { ...paymentRequestDto(ctx.site, renewal), dueAt: row.current_period_end } : null,
  };
}

async function thenCurrent(ctx: AppContext, userId: string, ran: Result<unknown>): Promise<Result<SubscriptionDto | null>> {
  return ran.ok ? success(await currentSubscription(ctx, userId)) : ran;
}

/** Activates or renews from a verified payment; applying the same payment again changes nothing. */
export async function applyVerifiedPayment(
  ctx: AppContext,
  payment: { paymentId: string; userId: string; planType: PlanType; amountSats: number },
  /** The verification's own metadata, so both appends carry one time and one actor. */
  meta: EventMetadata,
): Promise<Result<SubscriptionDto | null>> {
  const ran = await run(
    ctx,
    payment.userId,
    { type: 'ApplyVerifiedPayment', ...payment, amountSats: Number(payment.amountSats), newSubscriptionId: ctx.ids.next(), now: meta.at },
    meta,
  );
  return thenCurrent(ctx, payment.userId, ran);
}

export async function cancelSubscription(ctx: AppContext, userId: string, subscriptionId: string | undefined, caller: Caller) {
  const meta = eventMetadata(ctx, caller);
  const ran = await run(ctx, userId, { type: 'RequestCancel', ...(subscriptionId ? { subscriptionId } : {}), now: meta.at }, meta);
  // Nothing will renew: the renewal request already open for this period closes (renewals.ts).
  const sub = ran.ok ? await subscriptionOf(ctx.db, userId) : undefined;
  if (sub) await closeRenewalOnCancel(ctx, sub, meta);
  return thenCurrent(ctx, userId, ran);
}

export async function reactivateSubscription(ctx: AppContext, userId: string, subscriptionId: string, caller: Caller) {
  const meta = eventMetadata(ctx, caller);
  const ran = await run(ctx, userId, { type: 'Reactivate', subscriptionId, now: meta.at }, meta);
  return thenCurrent(ctx, userId, ran);
}

/** The lifecycle job's identity in the log. */
export const SCHEDULER_CALLER: Caller = { actorId: null, actor: 'billing-scheduler' };

/**
 * One pass of the time-driven work, idempotent and safe to run from several processes:
 * 1. verified payments whose activation never got appended (a crash between the two appends) are applied;
 * 2. subscriptions past their period end (or grace period) get their next lifecycle event;
 * 3. erased members' open payments are canceled and their subscriptions ended (billing/erasure.ts);
 * 4. renewal requests open for subscriptions entering the notice window, and due reminders go out (renewals.ts).
 */
export async function runLifecycle(ctx: AppContext): Promise<{ applied: number; advanced: number; renewals: number; reminders: number }> {
  const meta = eventMetadata(ctx, SCHEDULER_CALLER);
  const now = meta.at;
  const unapplied = await unappliedVerifiedPayments(ctx.db);
  for (const p of unapplied)
    successOrThrow(
      await applyVerifiedPayment(
        ctx,
        // The query leaves custom request payments out: they pay for no plan.
        { paymentId: p.id, userId: p.user_id, planType: p.plan_type as PlanType, amountSats: Number(p.amount_sats) },
        meta,
      ),
      'billing lifecycle',
    );
  const due = await subscriptionsDue(ctx.db, now);
  let advanced = 0;
  for (const { user_id } of due) {
    const r = successOrThrow(
      await run(ctx, user_id, { type: 'AdvanceLifecycle', now, graceDays: ctx.env.GRACE_PERIOD_DAYS }, meta),
      'billing lifecycle',
    ).value;
    if (r.events.length) advanced++;
  }
  await closeBillingOfErasedMembers(ctx, meta);
  const renewals = await openDueRenewals(ctx, meta);
  const reminders = await remindRenewals(ctx, meta);
  return { applied: unapplied.length, advanced, renewals, reminders };
}

/** Runs `runLifecycle` every `intervalMs` (default a minute), never two passes at once. */
export function startLifecycleScheduler(ctx: AppContext, intervalMs = 60_000) {
  return startPeriodic(() => runLifecycle(ctx), intervalMs, ctx.logger, 'billing lifecycle pass failed; will retry');
}
