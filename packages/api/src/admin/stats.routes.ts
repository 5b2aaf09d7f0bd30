/** GET /admin/stats: the dashboard's figures (stats.service.ts). */
import { adminStatsSchema } from '@members/ui/api/schemas';
import { ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { adminStats } from './stats.service.js';

export const adminStatsRoutes: Routes = (api, ctx) => {
  const getAdminStatsDoc = describe({
    summary: "The dashboard's figures",
    tags: ['admin'],
    access: 'admin',
    permission: 'analytics',
    ok: { 200: adminStatsSchema },
  });

  api.get('/admin/stats', getAdminStatsDoc, async function getAdminStats(c) {
    return ok(c, await adminStats(ctx.db, ctx.clock.now()));
  });
};
