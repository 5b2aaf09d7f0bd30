/**
 * Subscription use cases: applying a verified payment (activation or renewal), cancel at period
 * end, reactivation, and the time-driven lifecycle (`runLifecycle`, run every minute by the
 * scheduler the module starts, and directly by tests after moving the clock).
 */
import type { AppContext } from '../context.js';
import { handleCommand } from '../eventstore/commandHandler.js';
import type { EventMetadata } from '../eventstore/types.js';
import { fromDomainError } from '../http/envelope.js';
import type { PlanType } from './plans.js';
import { type PaymentRow, subscriptionDto, subscriptionOf } from './readModels.js';
import { type SubscriptionCommand, subscriptionDecider, subscriptionStreamId } from './subscription.decider.js';

async function run(ctx: AppContext, userId: string, command: SubscriptionCommand, meta: EventMetadata) {
  const result = await handleCommand(ctx.store, subscriptionStreamId(userId), subscriptionDecider, command, meta, { retries: 50 });
  if (!result.ok) throw fromDomainError(result.error);
  return result;
}

async function currentDto(ctx: AppContext, userId: string) {
  const row = await subscriptionOf(ctx.db, userId);
  return row ? subscriptionDto(ctx.site, row) : null;
}

/** Activates or renews from a verified payment; applying the same payment again changes nothing. */
export async function applyVerifiedPayment(
  ctx: AppContext,
  payment: { paymentId: string; userId: string; planType: PlanType; amountSats: number },
  meta: EventMetadata,
) {
  await run(
    ctx,
    payment.userId,
    { type: 'ApplyVerifiedPayment', ...payment, amountSats: Number(payment.amountSats), newSubscriptionId: ctx.ids.next(), now: meta.at },
    meta,
  );
  return currentDto(ctx, payment.userId);
}

export async function cancelSubscription(ctx: AppContext, userId: string, subscriptionId: string | undefined, meta: EventMetadata) {
  await run(ctx, userId, { type: 'RequestCancel', ...(subscriptionId ? { subscriptionId } : {}), now: meta.at }, meta);
  return currentDto(ctx, userId);
}

export async function reactivateSubscription(ctx: AppContext, userId: string, subscriptionId: string, meta: EventMetadata) {
  await run(ctx, userId, { type: 'Reactivate', subscriptionId, now: meta.at }, meta);
  return currentDto(ctx, userId);
}

export { currentDto as currentSubscription };

/**
 * One pass of the time-driven work, idempotent and safe to run from several processes:
 * 1. verified payments whose activation never got appended (a crash between the two appends) are applied;
 * 2. subscriptions past their period end (or grace period) get their next lifecycle event.
 */
export async function runLifecycle(ctx: AppContext): Promise<{ applied: number; advanced: number }> {
  const now = ctx.clock.now().toISOString();
  const meta: EventMetadata = { actorId: null, actor: 'billing-scheduler', at: now };
  const unapplied = await ctx.db.all<PaymentRow>(`SELECT * FROM billing_payments WHERE status = 'verified' AND applied_at IS NULL`);
  for (const p of unapplied)
    await applyVerifiedPayment(ctx, { paymentId: p.id, userId: p.user_id, planType: p.plan_type, amountSats: Number(p.amount_sats) }, meta);
  const due = await ctx.db.all<{ user_id: string }>(
    `SELECT user_id FROM billing_subscriptions
     WHERE (status = 'active' AND current_period_end <= ?) OR (status = 'past_due' AND grace_until <= ?)`,
    [now, now],
  );
  let advanced = 0;
  for (const { user_id } of due) {
    const r = await run(ctx, user_id, { type: 'AdvanceLifecycle', now, graceDays: ctx.env.GRACE_PERIOD_DAYS }, meta);
    if (r.events.length) advanced++;
  }
  return { applied: unapplied.length, advanced };
}

/** Runs `runLifecycle` every `intervalMs` (default a minute), never two passes at once. */
export function startLifecycleScheduler(ctx: AppContext, intervalMs = 60_000) {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = runLifecycle(ctx)
      .catch((err) => ctx.logger.error({ err }, 'billing lifecycle pass failed; will retry'))
      .finally(() => {
        busy = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
