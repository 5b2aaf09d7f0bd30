/** GET /api/admin/analytics/videos?from=&to=: views and watch time per video over a period (admin). */
import { videoAnalyticsSchema } from '@members/ui/api/schemas';
import { z } from 'zod';
import { ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { videoFigures } from './videoAnalytics.projection.js';

const DAY_MS = 86_400_000;
/** The longest period one answer covers. */
export const MAX_PERIOD_DAYS = 366;

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'must be a date YYYY-MM-DD',
  );

const periodQuery = z
  .object({ from: isoDay.optional(), to: isoDay.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'must not be after to', path: ['from'] })
  .refine((q) => !q.from || !q.to || (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS < MAX_PERIOD_DAYS, {
    message: `the period is at most ${MAX_PERIOD_DAYS} days`,
    path: ['from'],
  });

export const adminVideoAnalyticsRoutes: Routes = (api, ctx) => {
  const videoAnalyticsDoc = describe({
    summary: 'Views and watch time per video over a period, most watched first',
    description: `\`from\` and \`to\` are UTC days, both included (default: the 30 days ending today; at most ${MAX_PERIOD_DAYS} days). Views are counted views (spec §9); watch time is the seconds players reported (POST /videos/{id}/watch-time), recorded since that event shipped.`,
    tags: ['streaming', 'admin'],
    access: 'admin',
    permission: 'analytics',
    query: periodQuery,
    ok: { 200: videoAnalyticsSchema },
  });

  api.get('/admin/analytics/videos', videoAnalyticsDoc, async function videoAnalytics(c) {
    const q = c.req.valid('query');
    const to = q.to ?? ctx.clock.now().toISOString().slice(0, 10);
    const from = q.from ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
    return ok(c, await videoFigures(ctx.db, from, to));
  });
};
