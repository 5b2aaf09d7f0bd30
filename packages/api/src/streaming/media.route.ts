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
import { videoParams } from '../catalog/index.js';
import { describe, grantOf } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { mediaUrl } from './credentials.js';
import { sendStoredFile } from './sendMedia.js';

export { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './linkMessages.js';

/** The storage key of a rendition's progressive MP4 (transcode/hlsPackaging.ts). */
export const progressiveKey = (videoId: string, rendition: string) => `videos/${videoId}/hls/${rendition}/progressive.mp4`;

export const mediaRoutes: Routes = (api, ctx) => {
  const signed = mediaUrl(ctx, progressiveKey);
  const serveVideoDoc = describe({
    summary: 'The video bytes behind a signed URL (byte ranges)',
    description:
      'Not JSON: the file, with `Range`/`If-Range` (206, 416), `ETag`, `HEAD`, `Cache-Control: private`. With `MEDIA_ACCEL=nginx` the answer is an empty 200 with `X-Accel-Redirect` and nginx sends the bytes. Use the `streamUrl` from GET /videos/{id}/stream as it is.',
    tags: ['streaming'],
    access: { signedUrl: signed },
    ...videoParams,
    parameters: [{ name: 'Range', in: 'header', required: false, schema: { type: 'string', examples: ['bytes=0-1048575'] } }],
    responses: {
      200: { description: 'The whole file', content: { 'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } } } },
      206: { description: 'The requested range', content: { 'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } } } },
      304: { description: 'Not modified (`If-None-Match`)' },
      416: { description: 'Range not satisfiable (plain text, `Content-Range: bytes */size`)' },
    },
    errors: [403, 404],
  });

  api.get('/media/videos/:id', serveVideoDoc, async function serveVideo(c) {
    const { key, mime, expires } = grantOf(c, signed);
    return sendStoredFile(c, ctx, key, mime, expires);
  });
};
