/**
 * The admin dashboard's figures on /metrics, from the same queries as GET /api/admin/stats; one
 * query set per scrape, shared by the three gauges.
 */
import type { AppContext } from '../kernel/context.js';
import type { ModuleGauge } from '../metrics/index.js';
import { onceAtATime } from '../shared/onceAtATime.js';
import { adminStats } from './stats.service.js';

export function adminGauges(ctx: AppContext): ModuleGauge[] {
  const stats = onceAtATime(() => adminStats(ctx.db, ctx.clock.now()));
  return [
    {
      name: 'members_pending_approvals',
      help: 'Registrations waiting for an admin’s approval',
      read: async () => (await stats()).pendingApprovals,
    },
    {
      name: 'billing_pending_payments',
      help: 'Submitted payments waiting for an admin’s verification',
      read: async () => (await stats()).pendingPayments,
    },
    {
      name: 'billing_active_subscriptions',
      help: 'Subscriptions granting access now (active, or past due within the grace period)',
      read: async () => (await stats()).activeSubscribers,
    },
  ];
}
