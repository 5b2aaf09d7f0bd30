/** GET /admin/stats: the dashboard's figures (stats.service.ts). */
import { adminStatsSchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { adminStats } from './stats.service.js';

export function adminStatsRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const getAdminStatsDoc = describe({
    summary: "The dashboard's figures",
    tags: ['admin'],
    access: 'admin',
    ok: { 200: adminStatsSchema },
  });

  api.get('/admin/stats', getAdminStatsDoc, async function getAdminStats(c) {
    await requireAdmin(ctx, c);
    return ok(c, await adminStats(ctx.db, ctx.clock.now()));
  });
}
