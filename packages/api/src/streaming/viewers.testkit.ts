/**
 * Test-only: members and admins created by appending identity events directly (independent of the
 * identity routes), with tokens signed like the real ones. `grantActiveSubscriptionForTest` writes
 * the subscription columns directly — acceptable for the streaming tests only, where what matters is
 * the decision over those columns, not how billing sets them.
 */
import type { AppContext } from '../context.js';
import { signAccessToken } from '../http/auth.js';

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
  const at = ctx.clock.now().toISOString();
  const events = [
    {
      type: 'UserRegistered',
      data: {
        userId: id,
        email,
        firstName: 'Test',
        lastName: 'Viewer',
        dateOfBirth: '1990-01-01',
        passwordHash: 'not-a-real-hash',
        role,
        registeredAt: at,
      },
    },
  ];
  if (opts.approved ?? true) events.push({ type: 'UserApproved', data: { userId: id, approvedBy: 'test', approvedAt: at } } as never);
  else if (opts.rejected) events.push({ type: 'UserRejected', data: { userId: id, rejectedBy: 'test', rejectedAt: at } } as never);
  await ctx.store.append(`user-${id}`, events, { expectedVersion: 'no_stream', metadata: { at } });
  return { id, email, token: await signAccessToken(ctx, { id, role }) };
}

/** Test-only shortcut for an active subscription (see the module comment). */
export async function grantActiveSubscriptionForTest(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.run(`UPDATE users SET membership_status = 'active', subscription_status = 'active' WHERE id = ?`, [userId]);
}
