/**
 * Admin catalog management: list every video (published or not), edit metadata, access level
 * and publication (PUT), delete (DELETE). The use cases are in videos.service.ts.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { jsonBody, queryOf } from '../http/validate.js';
import { listVideos, toAdminVideo } from './catalog.queries.js';
import { listQuerySchema, videoIdParam } from './catalog.routes.js';
import { ACCESS_LEVELS, type AccessLevel } from './video.decider.js';
import { LIMITS } from './videoInput.js';
import { deleteVideo, editVideo, getAnyVideo } from './videos.service.js';

const labels = z.union([z.string().max(4000), z.array(z.string().max(LIMITS.label)).max(LIMITS.labels)]);

const editSchema = z
  .object({
    title: z.string().trim().min(1, 'must not be empty').max(LIMITS.title),
    description: z.string().trim().max(LIMITS.description),
    model: z.string().trim().max(LIMITS.model).nullable(),
    accessLevel: z.enum(ACCESS_LEVELS as [AccessLevel, ...AccessLevel[]]),
    tags: labels,
    categories: labels,
    published: z.boolean(),
  })
  .partial()
  .strict();

export function mountAdminCatalogRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/admin/videos', async function listAllVideos(c) {
    await requireAdmin(ctx, c);
    const query = queryOf(c, listQuerySchema);
    const { rows, total } = await listVideos(ctx.db, { ...query, includeUnpublished: true });
    return ok(c, { videos: rows.map(toAdminVideo), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/admin/videos/:id', async function readAnyVideo(c) {
    await requireAdmin(ctx, c);
    return ok(c, valueOr(await getAnyVideo(ctx, videoIdParam(c))));
  });

  api.put('/admin/videos/:id', async function edit(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    const body = await jsonBody(c, editSchema);
    return ok(c, valueOr(await editVideo(ctx, videoId, body, { actorId: admin.id, requestId: c.get('requestId') })));
  });

  api.delete('/admin/videos/:id', async function remove(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    return ok(c, valueOr(await deleteVideo(ctx, videoId, { actorId: admin.id, requestId: c.get('requestId') })));
  });
}
