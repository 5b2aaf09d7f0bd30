/**
 * The admin module: the approval queue and the dashboard counters. Payments and uploads mount their
 * own /admin routes from their modules.
 */
import type { AppModule } from '../kernel/module.js';
import { adminGauges } from './gauges.js';
import { adminStatsRoutes } from './stats.routes.js';
import { adminUserRoutes } from './users.routes.js';

export { type AdminStats, adminStats } from './stats.service.js';

export const adminModule: AppModule = {
  name: 'admin',
  gauges: adminGauges,
  routes(api, ctx) {
    adminUserRoutes(api, ctx);
    adminStatsRoutes(api, ctx);
  },
};
