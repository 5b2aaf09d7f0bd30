/**
 * The public catalog (the shop window): GET /api/videos, GET /api/videos/{id} and the public
 * thumbnail image. Visitors see published videos; the stream itself is what is protected.
 */
import { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { notFound, ok } from '../http/envelope.js';
import { idSchema, queryOf } from '../http/validate.js';
import { mediaStorageFor } from '../media/storage.js';
import { findVideo, listVideos, toVideoEntity } from './catalog.queries.js';
import { ACCESS_LEVELS } from './video.decider.js';

export const MAX_PAGE_SIZE = 100;

const text = (max: number) => z.string().trim().max(max).optional();

export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(24),
  q: text(200),
  model: text(100),
  category: text(64),
  tag: text(64),
  accessLevel: z.enum(ACCESS_LEVELS as [string, ...string[]]).optional(),
  sort: z.enum(['newest', 'popular']).default('newest'),
});

/** A URL id that is not one of ours can only be "Video not found". */
export function videoIdParam(c: Context): string {
  const parsed = idSchema.safeParse(c.req.param('id'));
  if (!parsed.success) throw notFound('Video not found');
  return parsed.data;
}

export function mountCatalogRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/videos', async function listCatalog(c) {
    const query = queryOf(c, listQuerySchema);
    const { rows, total } = await listVideos(ctx.db, query);
    return ok(c, { videos: rows.map(toVideoEntity), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/videos/:id', async function getVideo(c) {
    const row = await findVideo(ctx.db, videoIdParam(c));
    if (!row) throw notFound('Video not found');
    return ok(c, toVideoEntity(row));
  });

  api.get('/videos/:id/thumbnail', async function getThumbnail(c) {
    const row = await findVideo(ctx.db, videoIdParam(c));
    if (!row) throw notFound('Video not found');
    const storage = mediaStorageFor(ctx);
    const stat = await storage.stat(row.thumbnail_key);
    if (!stat) throw notFound('Thumbnail not found');
    const etag = `"t-${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('Content-Type', row.thumbnail_mime);
    c.header('Content-Length', String(stat.size));
    if (c.req.method === 'HEAD') return c.body(null, 200);
    const stream = storage.createReadStream(row.thumbnail_key);
    return c.body(Readable.toWeb(stream) as unknown as ReadableStream, 200);
  });
}
