/**
 * The HLS stream of a transcoded video, under `/api/hls/{id}/`, every URL signed for one viewer
 * (hlsSignature.ts: `?u&e&m&s`, the grant naming the tallest rendition they may watch):
 *
 *   master.m3u8                    the renditions this viewer may watch, nothing else
 *   {name}/index.m3u8              a media playlist; segment URIs signed, a key URI per key window
 *   segments/{name}-seg_00000.ts   an AES-128 encrypted segment (sendMedia.ts: nginx X-Accel-Redirect or Node);
 *                                  a marked ladder (FORENSIC_WATERMARK) also has variant B, `seg_00000b.ts`, and
 *                                  each member's media playlist picks A or B per position (docs/leak-tracing.md)
 *   previews.vtt, sprites/…jpg     seek previews
 *   captions/{lang}/index.m3u8     a caption track's media playlist (one segment), listed in the master
 *   captions/{lang}/captions.vtt   the track's WebVTT with X-TIMESTAMP-MAP (written at each request,
 *                                  so a track added after the transcode plays without a new one)
 *   key?u&e&t&w                    window w's AES key (no `w`: the video's one key, ladders made before
 *                                  windows): a valid key token AND the access decision now
 *                                  (approval, subscription, region), `Cache-Control: no-store`
 *
 * The master and media playlists make the access decision again too (accessRecheck.ts, at most
 * 15 s old), so a grant handed out before an erasure or the end of a subscription stops there;
 * segments stay shared and cacheable: a key fetched earlier opens its own window (~28 s) only.
 *
 * Anything without a valid signature (or for a rendition above the grant) is refused with the
 * progressive media route's messages; no playlist, segment or key is ever answered to it.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { captionOf, videoParams } from '../catalog/index.js';
import { memberVariants } from '../forensics/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { MediaStoreError } from '../media/index.js';
import { keyOf, windowKey } from '../transcode/index.js';
import { hlsGrant, keyToken } from './credentials.js';
import {
  captionMediaPlaylist,
  captionSegment,
  isMarkedPlaylist,
  masterPlaylist,
  rewriteMediaPlaylist,
  rewritePreviewsVtt,
} from './hlsPlaylists.js';
import { signKeyToken } from './hlsSignature.js';
import { SHARED_CACHE, sendStoredFile } from './sendMedia.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

/** The OpenAPI description of one signed HLS file route (not JSON: a playlist, segment, image or key), and its credential. */
function hlsDoc<P extends z.ZodObject>(summary: string, params: P, type: string, credential: Credential<any, any>) {
  return describe({
    summary,
    description:
      'Use the `hlsUrl`/`previewsUrl` from GET /videos/{id}/stream as they are: every URI inside carries what it needs. Refused without a valid signature or token (403).',
    tags: ['streaming'],
    access: { signedUrl: credential },
    ...videoParams,
    params,
    responses: { 200: { description: summary, content: { [type]: { schema: { type: 'string' } } } } },
    errors: [403, 404],
  });
}

const idOnly = videoParams.params;

/** The path prefix of a video's HLS files. */
export const hlsBase = (videoId: string) => `/api/hls/${encodeURIComponent(videoId)}`;

const keyOfFile = (videoId: string, file: string) => `videos/${videoId}/hls/${file}`;

/** A playlist or WebVTT written for one viewer. */
function text(c: Context<AppEnv>, body: string, type: string) {
  c.header('Content-Type', type);
  // Per viewer and carrying a key token: never stored by a browser or a proxy.
  c.header('Cache-Control', 'private, no-store');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(body, 200);
}

/** A stored playlist or WebVTT, or null when missing (or not a media key at all). */
async function readStoredText(ctx: AppContext, key: string): Promise<string | null> {
  try {
    return await ctx.media.readText(key);
  } catch (err) {
    if (err instanceof MediaStoreError) throw err;
    return null;
  }
}

/** The master and media playlists: the grant, and the access decision made again (`recheck`). */
function playlistRoutes(api: Hono<AppEnv>, ctx: AppContext) {
  const rechecked = hlsGrant(ctx, { recheck: true });
  api.get(
    '/hls/:id/master.m3u8',
    hlsDoc('The master playlist: the renditions this member may watch', idOnly, PLAYLIST_TYPE, rechecked),
    async function hlsMaster(c) {
      const g = grantOf(c, rechecked);
      const captions = JSON.parse(g.row.captions ?? '[]') as { language: string; label: string }[];
      return text(c, masterPlaylist(g.allowed, g.query, captions), PLAYLIST_TYPE);
    },
  );

  api.get(
    '/hls/:id/:rendition{[0-9]+p}/index.m3u8',
    hlsDoc(
      "A rendition's media playlist (signed segments, key URI with a short-lived token)",
      idOnly.extend({ rendition: z.string() }),
      PLAYLIST_TYPE,
      rechecked,
    ),
    async function hlsMediaPlaylist(c) {
      const { videoId, grant, query } = grantOf(c, rechecked);
      const name = c.req.valid('param').rendition;
      const stored = await readStoredText(ctx, keyOfFile(videoId, `${name}/index.m3u8`));
      if (stored === null) throw new HttpError('video.not_found', 'Video not found');
      const keyUri = `${hlsBase(videoId)}/key?${signKeyToken(ctx, videoId, grant.userId, grant.expires)}`;
      // A marked ladder (FORENSIC_WATERMARK): the member's own A/B sequence, their code (docs/leak-tracing.md).
      const variants = isMarkedPlaylist(stored)
        ? await memberVariants(ctx, grant.userId, videoId, stored.split(/\r?\n/).filter((l) => l && !l.startsWith('#')).length)
        : null;
      return text(
        c,
        rewriteMediaPlaylist(stored, name, query, keyUri, variants ? (i) => (variants[i] === 1 ? 1 : 0) : undefined),
        PLAYLIST_TYPE,
      );
    },
  );
}

/** A caption track's playlist and WebVTT: the grant and the access decision again, like the video's playlists. */
function captionRoutes(api: Hono<AppEnv>, ctx: AppContext) {
  const rechecked = hlsGrant(ctx, { recheck: true });
  const captionParams = idOnly.extend({ language: z.string() });
  /** The track's stored caption, or "Caption track not found". */
  async function trackOf(videoId: string, language: string) {
    const track = await captionOf(ctx.db, videoId, language);
    if (!track) throw new HttpError('caption.not_found', 'Caption track not found');
    return track;
  }
  api.get(
    '/hls/:id/captions/:language/index.m3u8',
    hlsDoc("A caption track's media playlist (one WebVTT segment)", captionParams, PLAYLIST_TYPE, rechecked),
    async function hlsCaptionPlaylist(c) {
      const g = grantOf(c, rechecked);
      await trackOf(g.videoId, c.req.valid('param').language);
      return text(c, captionMediaPlaylist(Number(g.row.duration_seconds), g.query), PLAYLIST_TYPE);
    },
  );

  api.get(
    '/hls/:id/captions/:language/captions.vtt',
    hlsDoc("A caption track's WebVTT segment", captionParams, 'text/vtt', rechecked),
    async function hlsCaptionSegment(c) {
      const track = await trackOf(grantOf(c, rechecked).videoId, c.req.valid('param').language);
      const stored = await readStoredText(ctx, track.caption_key);
      if (stored === null) throw new HttpError('caption.not_found', 'Caption track not found');
      return text(c, captionSegment(stored), 'text/vtt; charset=utf-8');
    },
  );
}

/** Segments and seek previews: the grant alone (shared, cacheable; a key fetched earlier opens its own window only). */
function fileRoutes(api: Hono<AppEnv>, ctx: AppContext) {
  const granted = hlsGrant(ctx);
  // One parameter for "{rendition}-seg_NNNNN.ts": a segment URL has two parameters, not three.
  api.get(
    '/hls/:id/segments/:segment{[0-9]+p-seg_[0-9]+b?\\.ts}',
    hlsDoc(
      'An AES-128 encrypted MPEG-TS segment ({rendition}-seg_NNNNN.ts; a marked ladder also has variant B, seg_NNNNNb.ts)',
      idOnly.extend({ segment: z.string() }),
      'video/mp2t',
      granted,
    ),
    async function hlsSegment(c) {
      const { videoId, grant } = grantOf(c, granted);
      const { segment } = c.req.valid('param');
      const [name, file] = [segment.slice(0, segment.indexOf('-')), segment.slice(segment.indexOf('-') + 1)];
      return sendStoredFile(c, ctx, keyOfFile(videoId, `${name}/${file}`), 'video/mp2t', grant.expires, SHARED_CACHE);
    },
  );

  api.get(
    '/hls/:id/previews.vtt',
    hlsDoc('Seek previews: WebVTT of sprite tiles', idOnly, 'text/vtt', granted),
    async function hlsPreviews(c) {
      const { videoId, query } = grantOf(c, granted);
      const stored = await readStoredText(ctx, keyOfFile(videoId, 'previews.vtt'));
      if (stored === null) throw new HttpError('video.not_found', 'Video not found');
      return text(c, rewritePreviewsVtt(stored, query), 'text/vtt; charset=utf-8');
    },
  );

  api.get(
    '/hls/:id/sprites/:sprite{sprite-[0-9][0-9][0-9]\\.jpg}',
    hlsDoc('A seek-preview sprite sheet', idOnly.extend({ sprite: z.string() }), 'image/jpeg', granted),
    async function hlsSprite(c) {
      const { videoId, grant } = grantOf(c, granted);
      return sendStoredFile(c, ctx, keyOfFile(videoId, `sprites/${c.req.valid('param').sprite}`), 'image/jpeg', grant.expires);
    },
  );
}

/** The AES key: its token and the access decision now (`credentials.ts` `keyToken`), never cached. */
function keyRoute(api: Hono<AppEnv>, ctx: AppContext) {
  const token = keyToken(ctx);
  api.get(
    '/hls/:id/key',
    hlsDoc(
      "The video's AES-128 key (16 bytes, no-store), to a member the access decision allows",
      idOnly,
      'application/octet-stream',
      token,
    ),
    async function hlsKey(c) {
      const { videoId, window } = grantOf(c, token);
      const key = await keyOf(ctx.db, videoId);
      if (!key) throw new HttpError('video.not_found', 'Video not found');
      c.header('Content-Type', 'application/octet-stream');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(new Uint8Array(window === undefined ? key.key : windowKey(key.key, window)), 200);
    },
  );
}

export const hlsRoutes: Routes = (api, ctx) => {
  playlistRoutes(api, ctx);
  captionRoutes(api, ctx);
  fileRoutes(api, ctx);
  keyRoute(api, ctx);
};
