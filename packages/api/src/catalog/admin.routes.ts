/**
 * Admin catalog management: list every video (published or not), edit metadata, access level
 * and publication (PUT), delete (DELETE). The use cases are in videos.service.ts.
 */
import { adminVideoPageSchema, adminVideoSchema, deletedVideoSchema, videoEditSchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams, jsonBody, queryOf } from '../http/validate.js';
import { listVideos, toAdminVideo } from './catalog.queries.js';
import { listQuerySchema, videoIdParam } from './catalog.routes.js';
import { deleteVideo, editVideo, getAnyVideo } from './videos.service.js';

/** The edit, shared with the clients (packages/ui). */
const editSchema = videoEditSchema;

export function mountAdminCatalogRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const listAllVideosDoc = describe({
    summary: 'Every video, published or not, with what the upload recorded',
    tags: ['catalog', 'admin'],
    access: 'admin',
    query: listQuerySchema,
    ok: { 200: adminVideoPageSchema },
  });
  const readAnyVideoDoc = describe({
    summary: 'One video (any state)',
    tags: ['catalog', 'admin'],
    access: 'admin',
    params: idParams,
    ok: { 200: adminVideoSchema },
    errors: [404],
  });
  const editDoc = describe({
    summary: 'Edit metadata, access level or publication',
    description: 'Every field optional; `tags` and `categories` as a list or one comma-separated string.',
    tags: ['catalog', 'admin'],
    access: 'admin',
    params: idParams,
    body: editSchema,
    ok: { 200: adminVideoSchema },
    errors: [404, 409],
  });
  const removeDoc = describe({
    summary: 'Delete a video and its files',
    tags: ['catalog', 'admin'],
    access: 'admin',
    params: idParams,
    ok: { 200: deletedVideoSchema },
    errors: [404, 409],
  });

  api.get('/admin/videos', listAllVideosDoc, async function listAllVideos(c) {
    await requireAdmin(ctx, c);
    const query = queryOf(c, listQuerySchema);
    const { rows, total } = await listVideos(ctx.db, { ...query, includeUnpublished: true });
    return ok(c, { videos: rows.map(toAdminVideo), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/admin/videos/:id', readAnyVideoDoc, async function readAnyVideo(c) {
    await requireAdmin(ctx, c);
    return ok(c, valueOr(await getAnyVideo(ctx, videoIdParam(c))));
  });

  api.put('/admin/videos/:id', editDoc, async function edit(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    const body = await jsonBody(c, editSchema);
    return ok(c, valueOr(await editVideo(ctx, videoId, body, { actorId: admin.id, requestId: c.get('requestId') })));
  });

  api.delete('/admin/videos/:id', removeDoc, async function remove(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    return ok(c, valueOr(await deleteVideo(ctx, videoId, { actorId: admin.id, requestId: c.get('requestId') })));
  });
}
