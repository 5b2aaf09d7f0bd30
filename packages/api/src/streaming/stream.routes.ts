/**
 * GET /api/videos/{id}/stream → `{ streamUrl, watermarkText }` when the access decision allows;
 * POST /api/videos/{id}/view `{ duration }` counts a view under the same decision.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { videoIdParam } from '../catalog/catalog.routes.js';
import type { AppContext } from '../context.js';
import { handleCommand } from '../eventstore/commandHandler.js';
import type { AppEnv } from '../http/appEnv.js';
import { fromDomainError, ok } from '../http/envelope.js';
import { jsonBody } from '../http/validate.js';
import { signStreamPath } from './streamSignature.js';
import { requireVideoAccess } from './videoAccess.js';
import { viewingDecider, viewsStreamId } from './viewing.decider.js';

const viewSchema = z.object({
  duration: z
    .number()
    .finite()
    .min(0)
    .max(24 * 3600),
});

/** Identifies the viewer on screen so a leaked recording can be traced. */
export const watermarkFor = (viewer: { id: string; email: string }) => `${viewer.email} · ${viewer.id.slice(0, 8)}`;

/** Where browsers reach us: PUBLIC_URL, else the proxy's forwarded host (when trusted), else this request's origin. */
function publicOrigin(ctx: AppContext, c: Context): string {
  if (ctx.env.PUBLIC_URL) return ctx.env.PUBLIC_URL.replace(/\/$/, '');
  if (ctx.env.TRUST_PROXY) {
    const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim();
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
    if (host && /^[\w.-]+(:\d+)?$/.test(host)) return `${proto === 'https' ? 'https' : 'http'}://${host}`;
  }
  return new URL(c.req.url).origin;
}

export function mountStreamRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/videos/:id/stream', async function getStream(c) {
    const { video, viewer } = await requireVideoAccess(ctx, c, videoIdParam(c));
    const { path, expiresAt } = signStreamPath(ctx, video.id, viewer.id);
    const base = publicOrigin(ctx, c);
    c.header('Cache-Control', 'private, no-store');
    return ok(c, { streamUrl: `${base}${path}`, watermarkText: watermarkFor(viewer), expiresAt });
  });

  api.post('/videos/:id/view', async function recordView(c) {
    const videoId = videoIdParam(c);
    // The access decision (login, approval, subscription) before the body: a visitor gets 401, not a validation error.
    const { viewer } = await requireVideoAccess(ctx, c, videoId);
    const { duration } = await jsonBody(c, viewSchema);
    const at = ctx.clock.now().toISOString();
    const result = await handleCommand(
      ctx.store,
      viewsStreamId(videoId, viewer.id),
      viewingDecider,
      { type: 'RecordView', data: { videoId, userId: viewer.id, watchedSeconds: duration, at } },
      { actorId: viewer.id, requestId: c.get('requestId'), at },
    );
    if (!result.ok) throw fromDomainError(result.error);
    const row = await ctx.db.get<{ view_count: number }>('SELECT view_count FROM videos WHERE id = ?', [videoId]);
    return ok(c, { counted: result.events.length > 0, viewCount: Number(row?.view_count ?? 0) });
  });
}
