/**
 * Test-only: members and admins created by appending identity events directly (independent of the
 * identity routes), with tokens signed like the real ones. `grantActiveSubscriptionForTest` writes
 * the subscription columns directly — acceptable for the streaming tests only, where what matters is
 * the decision over those columns, not how billing sets them.
 */

import { signAccessToken } from '../http/auth.js';
import { appendTestUser } from '../identity/identity.testkit.js';
import type { AppContext } from '../kernel/context.js';

export interface TestViewer {
  id: string;
  email: string;
  token: string;
}

let counter = 0;

export async function createTestUser(
  ctx: AppContext,
  opts: { role?: 'member' | 'admin'; approved?: boolean; rejected?: boolean; email?: string } = {},
): Promise<TestViewer> {
  const id = ctx.ids.next();
  const email = opts.email ?? `viewer${++counter}-${id.slice(0, 6)}@example.test`;
  const role = opts.role ?? 'member';
  await appendTestUser(ctx, { id, email, role, lastName: 'Viewer', approved: opts.approved ?? true, rejected: opts.rejected });
  return { id, email, token: await signAccessToken(ctx, { id, role }) };
}

/** Test-only shortcut for an active subscription (see the module comment). */
export async function grantActiveSubscriptionForTest(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.run(`UPDATE users SET membership_status = 'active', subscription_status = 'active' WHERE id = ?`, [userId]);
}

/** Test-only shortcut for an active subscription on a given plan (the billing row the entitlement reads; see the module comment). */
export async function grantPlanForTest(ctx: AppContext, userId: string, plan: 'monthly' | 'annual'): Promise<void> {
  await grantActiveSubscriptionForTest(ctx, userId);
  const at = ctx.clock.now().toISOString();
  await ctx.db.run(
    `INSERT INTO billing_subscriptions (user_id, subscription_id, plan_type, status, cancel_at_period_end, current_period_start,
       current_period_end, grace_until, last_payment_id, amount_sats, updated_at)
     VALUES (?, ?, ?, 'active', 0, ?, ?, NULL, 'test-payment', 0, ?)`,
    [userId, `sub-${userId}`, plan, at, new Date(Date.parse(at) + 30 * 86_400_000).toISOString(), at],
  );
}
