/**
 * Sends one stored media file after a route has decided the request may have it: the progressive
 * video (media.route.ts) and the HLS segments and sprites (hls.routes.ts) alike. With
 * MEDIA_ACCEL=nginx it answers `X-Accel-Redirect: {MEDIA_ACCEL_PREFIX}{key}` (and `X-Media-Key` for
 * nginx's auth_request subrequest) and nginx sends the bytes; otherwise Node streams them with byte
 * ranges (206, 416, If-Range), validators and private caching.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError } from '../http/envelope.js';
import { MEDIA_REFERRER_POLICY } from '../http/securityHeaders.js';
import type { AppContext } from '../kernel/context.js';
import { isValidKey } from '../media/index.js';
import { countedBody } from '../metrics/index.js';
import { ifRangeMatches, parseRange } from './byteRange.js';

/**
 * An AES-128 encrypted HLS segment is useless without its key (served per viewer, `no-store`), so
 * shared caches (nginx's proxy_cache, a CDN) may keep it; everything else stays private.
 */
export const SHARED_CACHE = 'public, max-age=3600, no-transform';
const PRIVATE_CACHE = 'private, no-transform';

/** How long the presigned URL nginx follows is valid: it uses it at once. */
const ACCEL_URL_SECONDS = 60;

/**
 * How long nginx may reuse a decision for the next ranges of the same signed URL (the template's
 * `members_media_grants` cache): with the API's own re-check cache (accessRecheck.ts, 15 s) a
 * revoked viewer's progressive URL stops within 30 s.
 */
export const ACCEL_DECISION_SECONDS = 15;

/**
 * @param expires the signed URL's expiry (Unix seconds): nginx may reuse the decision until then, ACCEL_DECISION_SECONDS at most.
 */
export async function sendStoredFile(
  c: Context<AppEnv>,
  ctx: AppContext,
  key: string,
  mimeType: string,
  expires: number,
  cacheControl: string = PRIVATE_CACHE,
) {
  const storage = ctx.media;
  if (!isValidKey(key)) throw new HttpError('video.not_found', 'Video not found');
  const stat = await storage.stat(key);
  if (!stat) throw new HttpError('video.not_found', 'Video not found');
  const etag = `"v-${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
  const presigned = ctx.env.MEDIA_ACCEL === 'nginx' ? await storage.presignedUrl(key, ACCEL_URL_SECONDS) : null;
  if (presigned) {
    // nginx fetches the object from the store itself (an internal location proxying to the
    // presigned URL, deploy/nginx-s3.conf.snippet), Range included: no byte passes through Node.
    const url = new URL(presigned);
    c.header('Content-Type', mimeType);
    c.header('Content-Disposition', 'inline');
    c.header('Cache-Control', cacheControl);
    c.header('X-Accel-Redirect', `${ctx.env.MEDIA_ACCEL_PREFIX}${url.protocol.slice(0, -1)}/${url.host}${url.pathname}${url.search}`);
    return c.body(null, 200);
  }
  if (ctx.env.MEDIA_ACCEL === 'nginx') {
    // Headers nginx keeps from this answer on a redirect: Content-Type, Content-Disposition,
    // Cache-Control (the rest it sets itself or the internal location adds).
    c.header('Content-Type', mimeType);
    c.header('Content-Disposition', 'inline');
    c.header('Cache-Control', cacheControl);
    c.header('X-Accel-Redirect', `${ctx.env.MEDIA_ACCEL_PREFIX}${key}`);
    c.header('X-Media-Key', key);
    // nginx may reuse this decision for the next ranges of the same signed URL: 15 s at most
    // (a revoked viewer or an unpublished video stops within it), never past the URL's expiry.
    const left = expires - Math.floor(ctx.clock.now().getTime() / 1000);
    c.header('X-Accel-Expires', String(Math.max(0, Math.min(ACCEL_DECISION_SECONDS, left))));
    return c.body(null, 200);
  }
  c.header('Accept-Ranges', 'bytes');
  c.header('ETag', etag);
  c.header('Last-Modified', stat.mtime.toUTCString());
  c.header('Cache-Control', cacheControl);
  c.header('Content-Type', mimeType);
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
  // The range, if any and still valid for this file.
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
  const stream = await storage.openRead(key, { start, end });
  return c.body(countedBody(ctx.metrics, stream), status);
}
