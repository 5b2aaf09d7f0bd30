/**
 * GET /admin/stats: identity's counters (pending approvals, active members) with billing's figures
 * (revenue as a BTC string, pending payments, active subscribers).
 */
import type { Hono } from 'hono';
import { billingStats } from '../billing/stats.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/types.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { identityCounts } from '../identity/users.queries.js';
import { formatBtc } from '../shared/money.js';

export interface AdminStats {
  pendingApprovals: number;
  activeMembers: number;
  /** BTC decimal string, e.g. "0.0055". */
  totalRevenue: string;
  pendingPayments: number;
  activeSubscribers: number;
}

export async function adminStats(db: Queryable): Promise<AdminStats> {
  const [identity, billing] = await Promise.all([identityCounts(db), billingStats(db)]);
  return {
    pendingApprovals: identity.pendingApprovals,
    activeMembers: identity.activeMembers,
    totalRevenue: formatBtc(billing.totalRevenueSats),
    pendingPayments: billing.pendingPayments,
    activeSubscribers: billing.activeSubscribers,
  };
}

export function adminStatsRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/admin/stats', async function getAdminStats(c) {
    await requireAdmin(ctx, c);
    return ok(c, await adminStats(ctx.db));
  });
}
