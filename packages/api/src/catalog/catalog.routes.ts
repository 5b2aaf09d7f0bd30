/**
 * The public catalog (the shop window): GET /api/videos, GET /api/videos/{id} and the public
 * thumbnail image. Visitors see published videos; the stream itself is what is protected.
 */
import { Readable } from 'node:stream';
import { videoListQuerySchema, videoPageSchema, videoSchema } from '@members/ui/api/schemas';
import type { Context, Hono } from 'hono';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError, ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams, idSchema, queryOf } from '../http/validate.js';
import { findVideo, listVideos, toVideoEntity } from './catalog.queries.js';

/** The list query, shared with the clients (packages/ui). */
export const listQuerySchema = videoListQuerySchema;

/** A URL id that is not one of ours can only be "Video not found". */
export function videoIdParam(c: Context): string {
  const parsed = idSchema.safeParse(c.req.param('id'));
  if (!parsed.success) throw new HttpError('video.not_found', 'Video not found');
  return parsed.data;
}

export function mountCatalogRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const listCatalogDoc = describe({
    summary: 'The published catalog, filtered and paged',
    description: '`q` searches titles, descriptions and tags; `sort=popular` orders by views.',
    tags: ['catalog'],
    access: 'public',
    query: listQuerySchema,
    ok: { 200: videoPageSchema },
  });
  const getVideoDoc = describe({
    summary: 'One published video',
    tags: ['catalog'],
    access: 'public',
    params: idParams,
    ok: { 200: videoSchema },
    errors: [404],
  });
  const getThumbnailDoc = describe({
    summary: 'The thumbnail image of a published video',
    description: 'Public, cacheable (`ETag`, `Cache-Control: public, max-age=300`); `HEAD` is answered too.',
    tags: ['catalog'],
    access: 'public',
    params: idParams,
    responses: {
      200: { description: 'The image', content: { 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } } },
      304: { description: 'Not modified (`If-None-Match`)' },
    },
    errors: [404],
  });

  api.get('/videos', listCatalogDoc, async function listCatalog(c) {
    const query = queryOf(c, listQuerySchema);
    const { rows, total } = await listVideos(ctx.db, { ...query, viewerId: c.get('auth')?.userId });
    return ok(c, { videos: rows.map(toVideoEntity), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/videos/:id', getVideoDoc, async function getVideo(c) {
    const row = await findVideo(ctx.db, videoIdParam(c), { viewerId: c.get('auth')?.userId });
    if (!row) throw new HttpError('video.not_found', 'Video not found');
    return ok(c, toVideoEntity(row));
  });

  api.get('/videos/:id/thumbnail', getThumbnailDoc, async function getThumbnail(c) {
    const row = await findVideo(ctx.db, videoIdParam(c), { viewerId: c.get('auth')?.userId });
    if (!row) throw new HttpError('video.not_found', 'Video not found');
    const storage = ctx.media;
    const stat = await storage.stat(row.thumbnail_key);
    if (!stat) throw new HttpError('video.not_found', 'Thumbnail not found');
    const etag = `"t-${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('Content-Type', row.thumbnail_mime);
    c.header('Content-Length', String(stat.size));
    if (c.req.method === 'HEAD') return c.body(null, 200);
    const stream = await storage.openRead(row.thumbnail_key);
    return c.body(Readable.toWeb(stream) as unknown as ReadableStream, 200);
  });
}
