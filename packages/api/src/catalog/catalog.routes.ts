/**
 * The public catalog (the shop window): GET /api/videos, GET /api/videos/{id} and the public
 * thumbnail image. Visitors see published videos; the stream itself is what is protected.
 */
import { Readable } from 'node:stream';
import { videoListQuerySchema, videoPageSchema, videoSchema } from '@members/ui/api/schemas';
import { permissionRequired } from '@members/ui/staffRoles';
import { z } from 'zod';
import { HttpError, ok } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import type { VideoRow } from './catalog.projection.js';
import { findVideo, listVideos, previewRefused, toVideoEntity } from './catalog.queries.js';
import { type Audience, audienceOf, availableAtOf, VISITOR } from './releases.js';
import { signThumbnailPath, thumbnailGrantUser } from './thumbnailGrant.js';

/** The list query, shared with the clients (packages/ui). */
export const listQuerySchema = videoListQuerySchema;

/** A URL id that is not one of ours can only be "Video not found" (a route's `describe`: `...videoParams`). */
export const videoParams = { params: idParams, invalidParams: { code: 'video.not_found', message: 'Video not found' } } as const;

/**
 * The Video entity for this viewer: `availableAt` as their audience's (scheduled releases); a delivered
 * custom video's card: its thumbnail path carries a grant for the viewer (an `<img>` sends no token).
 */
function entityFor(ctx: AppContext, row: VideoRow, viewerId: string | undefined, audience: Audience) {
  const entity = toVideoEntity(row, availableAtOf(row, audience, ctx.site.releases, ctx.clock.now().getTime()));
  return row.private_to && viewerId ? { ...entity, thumbnailPath: signThumbnailPath(ctx, row.id, viewerId) } : entity;
}

const thumbnailGrantQuery = z.object({
  u: z.string().max(64).optional().describe('Grant: the viewer (a delivered custom video’s thumbnail only)'),
  e: z.string().max(16).optional().describe('Grant: expiry, Unix seconds'),
  s: z.string().max(64).optional().describe('Grant: signature'),
});

/**
 * The viewer a thumbnail is for: the bearer token's, or a delivered custom video's grant (`u`, `e`, `s`:
 * an `<img>` sends no token). Identifies, refuses no one: a thumbnail that is not the viewer's is "not found".
 */
function thumbnailViewer(ctx: AppContext): Credential<{ viewerId: string | undefined }, typeof thumbnailGrantQuery> {
  return {
    who: 'Public. A delivered custom video’s thumbnail is for its requester (bearer token, or the grant in its `thumbnailPath`) and admins.',
    query: thumbnailGrantQuery,
    open: true,
    verify: (c, { param, query }) => ({ viewerId: c.get('auth')?.userId ?? thumbnailGrantUser(ctx, String(param.id), query) }),
  };
}

export const catalogRoutes: Routes = (api, ctx) => {
  const thumbnailFor = thumbnailViewer(ctx);
  const listCatalogDoc = describe({
    summary: 'The published catalog, filtered and paged',
    description:
      '`q` searches titles, descriptions and tags; `sort=popular` orders by views; `exclusiveTo=annual` lists the behind-the-scenes videos. A scheduled video is listed from its `publishAt` on; `availableAt` says when the viewer’s plan may watch it (`releases` in GET /site).',
    tags: ['catalog'],
    access: 'public',
    query: listQuerySchema,
    ok: { 200: videoPageSchema },
  });
  const getVideoDoc = describe({
    summary: 'One published video',
    description:
      'Before its `publishAt` a scheduled video is not found, except by an admin (who also finds unpublished ones): previewing a video not out yet takes the `videos` staff permission, any other staff role is refused with 403 `auth.permission_required`.',
    tags: ['catalog'],
    access: 'public',
    ...videoParams,
    ok: { 200: videoSchema },
    errors: [403, 404],
  });
  const getThumbnailDoc = describe({
    summary: 'The thumbnail image of a published video',
    description:
      'Public, cacheable (`ETag`, `Cache-Control: public, max-age=300`); `HEAD` is answered too. A delivered custom video’s thumbnail is its requester’s (and admins’) only: the `thumbnailPath` they are given carries a grant (`u`, `e`, `s`), answered `Cache-Control: private`.',
    tags: ['catalog'],
    access: { signedUrl: thumbnailFor },
    ...videoParams,
    query: thumbnailGrantQuery,
    responses: {
      200: { description: 'The image', content: { 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } } },
      304: { description: 'Not modified (`If-None-Match`)' },
    },
    errors: [404],
  });

  api.get('/videos', listCatalogDoc, async function listCatalog(c) {
    const query = c.req.valid('query');
    const { rows, total } = await listVideos(ctx.db, { ...query, viewerId: c.get('auth')?.userId });
    const viewerId = c.get('auth')?.userId;
    // A page without a scheduled video needs no plan: `availableAt` is null for everyone.
    const audience = rows.some((row) => row.publish_at) ? await audienceOf(ctx.db, viewerId) : VISITOR;
    return ok(c, {
      videos: rows.map((row) => entityFor(ctx, row, viewerId, audience)),
      total,
      page: query.page,
      pageSize: query.pageSize,
    });
  });

  api.get('/videos/:id', getVideoDoc, async function getVideo(c) {
    const viewerId = c.get('auth')?.userId;
    const row = await findVideo(ctx.db, c.req.valid('param').id, { viewerId });
    if (!row) throw new HttpError('video.not_found', 'Video not found');
    if (await previewRefused(ctx.db, row, viewerId)) throw new HttpError('auth.permission_required', permissionRequired('videos'));
    return ok(c, entityFor(ctx, row, viewerId, row.publish_at ? await audienceOf(ctx.db, viewerId) : VISITOR));
  });

  api.get('/videos/:id/thumbnail', getThumbnailDoc, async function getThumbnail(c) {
    const id = c.req.valid('param').id;
    const { viewerId } = grantOf(c, thumbnailFor);
    const row = await findVideo(ctx.db, id, { viewerId });
    if (!row) throw new HttpError('video.not_found', 'Video not found');
    const storage = ctx.media;
    const stat = await storage.stat(row.thumbnail_key);
    if (!stat) throw new HttpError('video.not_found', 'Thumbnail not found');
    const etag = `"t-${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
    c.header('ETag', etag);
    // A private video's image is never kept by a shared cache (nginx's thumbnail cache included).
    c.header('Cache-Control', row.private_to ? 'private, max-age=300' : 'public, max-age=300');
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('Content-Type', row.thumbnail_mime);
    c.header('Content-Length', String(stat.size));
    if (c.req.method === 'HEAD') return c.body(null, 200);
    const stream = await storage.openRead(row.thumbnail_key);
    return c.body(Readable.toWeb(stream) as unknown as ReadableStream, 200);
  });
};
