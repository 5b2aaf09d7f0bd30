/**
 * Test-only: members and admins created by appending identity events directly (independent of the
 * identity routes), with tokens signed like the real ones. `grantActiveSubscriptionForTest` writes
 * the subscription columns directly — acceptable for the streaming tests only, where what matters is
 * the decision over those columns, not how billing sets them.
 */
import type { AppContext } from '../context.js';
import { signAccessToken } from '../http/auth.js';
import { appendTestUser } from '../identity/identity.testkit.js';

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
