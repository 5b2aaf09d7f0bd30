/**
 * GET/HEAD /api/media/videos/{id}?u=&e=&r=&s= — the protected video bytes behind a signed, expiring
 * URL, with byte ranges as players use them (206, 416, If-Range), validators and private caching.
 * The signature names the file (`r`): `original` (the upload, for admins only) or a rendition's
 * progressive MP4 no taller than the viewer's entitlement; the storage key comes from the catalog,
 * never from anything in the URL. The access decision is made again for the URL's viewer
 * (accessRecheck.ts, at most 15 s old), so erasure or the end of a subscription stops the URL.
 *
 * With MEDIA_ACCEL=nginx the route still decides (signature, live video, file present) but sends
 * no bytes (sendMedia.ts): nginx serves the file after this check (deploy/nginx.conf).
 */
import { hlsLadderOf, videoParams } from '../catalog/index.js';
import { geoCheckFor } from '../geo/index.js';
import { HttpError } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../module.js';
import { recheckAccess } from './accessRecheck.js';
import { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './linkMessages.js';
import { sendStoredFile } from './sendMedia.js';
import { verifyStreamSignature } from './streamSignature.js';

export { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './linkMessages.js';

/** The storage key of a rendition's progressive MP4 (transcode/hlsPackaging.ts). */
export const progressiveKey = (videoId: string, rendition: string) => `videos/${videoId}/hls/${rendition}/progressive.mp4`;

export const mediaRoutes: Routes = (api, ctx) => {
  const serveVideoDoc = describe({
    summary: 'The video bytes behind a signed URL (byte ranges)',
    description:
      'Not JSON: the file, with `Range`/`If-Range` (206, 416), `ETag`, `HEAD`, `Cache-Control: private`. With `MEDIA_ACCEL=nginx` the answer is an empty 200 with `X-Accel-Redirect` and nginx sends the bytes. Use the `streamUrl` from GET /videos/{id}/stream as it is.',
    tags: ['streaming'],
    access: 'signedUrl',
    ...videoParams,
    parameters: [
      { name: 'u', in: 'query', required: true, description: 'The member the URL was signed for', schema: { type: 'string' } },
      { name: 'e', in: 'query', required: true, description: 'Expiry (Unix seconds)', schema: { type: 'string' } },
      {
        name: 'r',
        in: 'query',
        required: true,
        description: 'The file: `original` (admins) or a rendition (`720p`)',
        schema: { type: 'string' },
      },
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
    const videoId = c.req.valid('param').id;
    const q = { u: c.req.query('u'), e: c.req.query('e'), r: c.req.query('r'), s: c.req.query('s') };
    const check = verifyStreamSignature(ctx, videoId, q);
    if (!check.ok)
      throw check.reason === 'expired'
        ? new HttpError('stream.link_expired', STREAM_LINK_EXPIRED)
        : new HttpError('stream.link_invalid', STREAM_LINK_INVALID);

    // 2. The access decision as it stands now (a live, published video; the viewer still allowed).
    const { video, viewer, maxHeight } = await recheckAccess(ctx, videoId, check.grant.userId, geoCheckFor(c, ctx).blocked);

    // 3. The signed file, if this viewer may still have it.
    const { file } = check.grant;
    if (file === 'original') {
      if (viewer.role !== 'admin') throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
      return sendStoredFile(c, ctx, video.video_key, video.video_mime, check.grant.expires);
    }
    const rendition = hlsLadderOf(video)?.renditions.find((r) => r.name === file && r.progressive);
    if (!rendition) throw new HttpError('video.not_found', 'Video not found');
    if (rendition.height > maxHeight) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
    return sendStoredFile(c, ctx, progressiveKey(videoId, file), 'video/mp4', check.grant.expires);
  });
};
