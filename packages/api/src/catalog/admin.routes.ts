/**
 * Admin catalog management: list every video (published or not), edit metadata, access level
 * and publication (PUT), delete (DELETE, files removed after the event is recorded).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { handleCommand } from '../eventstore/commandHandler.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { badRequest, fromDomainError, notFound, ok } from '../http/envelope.js';
import { jsonBody, queryOf } from '../http/validate.js';
import { mediaStorageFor } from '../media/storage.js';
import { findVideo, listVideos, toAdminVideo } from './catalog.queries.js';
import { listQuerySchema, videoIdParam } from './catalog.routes.js';
import { ACCESS_LEVELS, type VideoDetails, videoDecider, videoStreamId } from './video.decider.js';
import { LIMITS, parseLabels } from './videoInput.js';

const labels = z.union([z.string().max(4000), z.array(z.string().max(LIMITS.label)).max(LIMITS.labels)]);

const editSchema = z
  .object({
    title: z.string().trim().min(1, 'must not be empty').max(LIMITS.title),
    description: z.string().trim().max(LIMITS.description),
    model: z.string().trim().max(LIMITS.model).nullable(),
    accessLevel: z.enum(ACCESS_LEVELS as [string, ...string[]]),
    tags: labels,
    categories: labels,
    published: z.boolean(),
  })
  .partial()
  .strict();

function changesFrom(body: z.infer<typeof editSchema>): Partial<VideoDetails> {
  const changes: Partial<VideoDetails> = {};
  if (body.title !== undefined) changes.title = body.title;
  if (body.description !== undefined) changes.description = body.description;
  if (body.model !== undefined) changes.modelName = body.model || null;
  if (body.accessLevel !== undefined) changes.accessLevel = body.accessLevel as VideoDetails['accessLevel'];
  for (const field of ['tags', 'categories'] as const) {
    if (body[field] === undefined) continue;
    const parsed = parseLabels(body[field], field);
    if (!parsed.ok) throw badRequest(parsed.error);
    changes[field] = parsed.value;
  }
  return changes;
}

export function mountAdminCatalogRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/admin/videos', async function listAllVideos(c) {
    await requireAdmin(ctx, c);
    const query = queryOf(c, listQuerySchema);
    const { rows, total } = await listVideos(ctx.db, { ...query, includeUnpublished: true });
    return ok(c, { videos: rows.map(toAdminVideo), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/admin/videos/:id', async function getAnyVideo(c) {
    await requireAdmin(ctx, c);
    const row = await findVideo(ctx.db, videoIdParam(c), { includeUnpublished: true });
    if (!row) throw notFound('Video not found');
    return ok(c, toAdminVideo(row));
  });

  api.put('/admin/videos/:id', async function editVideo(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    const body = await jsonBody(c, editSchema);
    const at = ctx.clock.now().toISOString();
    const result = await handleCommand(
      ctx.store,
      videoStreamId(videoId),
      videoDecider,
      { type: 'EditVideo', data: { videoId, changes: changesFrom(body), publish: body.published, actorId: admin.id, at } },
      { actorId: admin.id, requestId: c.get('requestId'), at },
    );
    if (!result.ok) throw fromDomainError(result.error);
    const row = await findVideo(ctx.db, videoId, { includeUnpublished: true });
    if (!row) throw notFound('Video not found');
    return ok(c, toAdminVideo(row));
  });

  api.delete('/admin/videos/:id', async function deleteVideo(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    const at = ctx.clock.now().toISOString();
    const result = await handleCommand(
      ctx.store,
      videoStreamId(videoId),
      videoDecider,
      { type: 'DeleteVideo', data: { videoId, actorId: admin.id, at } },
      { actorId: admin.id, requestId: c.get('requestId'), at },
    );
    if (!result.ok) throw fromDomainError(result.error);
    // The event is the truth; files go after it (a crash here leaves only orphan files, never a dangling row).
    await mediaStorageFor(ctx)
      .removeVideo(videoId)
      .catch((err) => ctx.logger.warn({ err, videoId }, 'could not remove video files'));
    return ok(c, { videoId, deleted: true });
  });
}
