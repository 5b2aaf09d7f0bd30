/** GET /admin/stats: the dashboard's figures (stats.service.ts). */
import type { Hono } from 'hono';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { adminStats } from './stats.service.js';

export function adminStatsRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/admin/stats', async function getAdminStats(c) {
    await requireAdmin(ctx, c);
    return ok(c, await adminStats(ctx.db));
  });
}
