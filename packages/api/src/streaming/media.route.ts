/**
 * GET/HEAD /api/media/videos/{id}?u=&e=&s= — the protected video bytes behind a signed, expiring
 * URL, with byte ranges as players use them (206, 416, If-Range), validators and private caching.
 * The file comes from the catalog row's storage key, never from anything in the URL.
 *
 * With MEDIA_ACCEL=nginx the route still decides (signature, live video, file present) but sends
 * no bytes: it answers `X-Accel-Redirect: {MEDIA_ACCEL_PREFIX}{key}` (nginx serves the file from
 * its `internal` location) and `X-Media-Key: {key}` (nginx's auth_request subrequest, which
 * serves the file itself and may reuse the decision for `X-Accel-Expires` seconds). Either way
 * nginx sends the file with sendfile, ranges, validators and keep-alive, only after this check
 * (deploy/nginx.conf).
 */
import type { Hono } from 'hono';
import { findVideo } from '../catalog/catalog.queries.js';
import { videoIdParam } from '../catalog/catalog.routes.js';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { forbidden, notFound } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { MEDIA_REFERRER_POLICY } from '../http/securityHeaders.js';
import { idParams } from '../http/validate.js';
import { mediaStorageFor } from '../media/storage.js';
import { countedBody } from '../metrics/index.js';
import { ifRangeMatches, parseRange } from './byteRange.js';
import { verifyStreamSignature } from './streamSignature.js';

export const STREAM_LINK_INVALID = 'This video link is not valid. Please open the video again.';
export const STREAM_LINK_EXPIRED = 'This video link has expired. Please open the video again.';

export function mountMediaRoute(api: Hono<AppEnv>, ctx: AppContext): void {
  const serveVideoDoc = describe({
    summary: 'The video bytes behind a signed URL (byte ranges)',
    description:
      'Not JSON: the file, with `Range`/`If-Range` (206, 416), `ETag`, `HEAD`, `Cache-Control: private`. With `MEDIA_ACCEL=nginx` the answer is an empty 200 with `X-Accel-Redirect` and nginx sends the bytes. Use the `streamUrl` from GET /videos/{id}/stream as it is.',
    tags: ['streaming'],
    access: 'signedUrl',
    params: idParams,
    parameters: [
      { name: 'u', in: 'query', required: true, description: 'The member the URL was signed for', schema: { type: 'string' } },
      { name: 'e', in: 'query', required: true, description: 'Expiry (Unix seconds)', schema: { type: 'string' } },
      { name: 's', in: 'query', required: true, description: 'HMAC-SHA256 signature', schema: { type: 'string' } },
      { name: 'Range', in: 'header', required: false, schema: { type: 'string', examples: ['bytes=0-1048575'] } },
    ],
    responses: {
      200: { description: 'The whole file', content: { 'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } } } },
      206: { description: 'The requested range', content: { 'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } } } },
      304: { description: 'Not modified (`If-None-Match`)' },
      416: { description: 'Range not satisfiable (plain text, `Content-Range: bytes */size`)' },
    },
    errors: [403, 404],
  });

  api.get('/media/videos/:id', serveVideoDoc, async function serveVideo(c) {
    // 1. The signature, before any lookup.
    const videoId = videoIdParam(c);
    const check = verifyStreamSignature(ctx, videoId, { u: c.req.query('u'), e: c.req.query('e'), s: c.req.query('s') });
    if (!check.ok) throw forbidden(check.reason === 'expired' ? STREAM_LINK_EXPIRED : STREAM_LINK_INVALID);

    // 2. The file of a live, published video.
    const row = await findVideo(ctx.db, videoId);
    if (!row) throw notFound('Video not found');
    const storage = mediaStorageFor(ctx);
    const stat = await storage.stat(row.video_key);
    if (!stat) throw notFound('Video not found');
    const etag = `"v-${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
    if (ctx.env.MEDIA_ACCEL === 'nginx') {
      // Headers nginx keeps from this answer on a redirect: Content-Type, Content-Disposition,
      // Cache-Control (the rest it sets itself or the internal location adds).
      c.header('Content-Type', row.video_mime);
      c.header('Content-Disposition', 'inline');
      c.header('Cache-Control', 'private, no-transform');
      c.header('X-Accel-Redirect', `${ctx.env.MEDIA_ACCEL_PREFIX}${row.video_key}`);
      c.header('X-Media-Key', row.video_key);
      // nginx may reuse this decision for the next ranges of the same signed URL: a minute at
      // most (an unpublished video stops within it), never past the URL's expiry.
      const left = check.grant.expires - Math.floor(ctx.clock.now().getTime() / 1000);
      c.header('X-Accel-Expires', String(Math.max(0, Math.min(60, left))));
      return c.body(null, 200);
    }
    c.header('Accept-Ranges', 'bytes');
    c.header('ETag', etag);
    c.header('Last-Modified', stat.mtime.toUTCString());
    c.header('Cache-Control', 'private, no-transform');
    c.header('Content-Type', row.video_mime);
    c.header('Content-Disposition', 'inline');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', MEDIA_REFERRER_POLICY);
    if (
      c.req
        .header('if-none-match')
        ?.split(',')
        .some((t) => t.trim() === etag)
    )
      return c.body(null, 304);

    // 3. The range, if any and still valid for this file.
    const range = ifRangeMatches(c.req.header('if-range'), etag, stat.mtime)
      ? parseRange(c.req.header('range'), stat.size)
      : { kind: 'full' as const };
    if (range.kind === 'unsatisfiable') {
      c.header('Content-Range', `bytes */${stat.size}`);
      c.header('Content-Type', 'text/plain; charset=utf-8');
      return c.body('Requested range not satisfiable', 416);
    }
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, stat.size - 1];
    const status = range.kind === 'partial' ? 206 : 200;
    if (status === 206) c.header('Content-Range', `bytes ${start}-${end}/${stat.size}`);
    c.header('Content-Length', String(end - start + 1));
    if (c.req.method === 'HEAD' || stat.size === 0) return c.body(null, status);
    const stream = storage.createReadStream(row.video_key, { start, end });
    return c.body(countedBody(ctx.metrics, stream), status);
  });
}
