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
import type { Context } from 'hono';
import { z } from 'zod';
import { captionOf, findVideo, hlsLadderOf, videoIdParam } from '../catalog/index.js';
import { memberVariants } from '../forensics/index.js';
import { geoCheckFor } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { MediaStoreError } from '../media/index.js';
import type { Routes } from '../module.js';
import { keyOf, windowKey } from '../transcode/index.js';
import { recheckAccess } from './accessRecheck.js';
import { entitledRenditions } from './entitlement.js';
import {
  captionMediaPlaylist,
  captionSegment,
  isMarkedPlaylist,
  masterPlaylist,
  rewriteMediaPlaylist,
  rewritePreviewsVtt,
} from './hlsPlaylists.js';
import { type HlsGrant, signKeyToken, verifyHlsGrant, verifyKeyToken } from './hlsSignature.js';
import { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './media.route.js';
import { SHARED_CACHE, sendStoredFile } from './sendMedia.js';
import { authorizeViewing } from './viewing.service.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

const GRANT_PARAMS = [
  { name: 'u', in: 'query' as const, required: true, description: 'The member the grant was signed for', schema: { type: 'string' } },
  { name: 'e', in: 'query' as const, required: true, description: 'Expiry (Unix seconds)', schema: { type: 'string' } },
  {
    name: 'm',
    in: 'query' as const,
    required: true,
    description: 'Tallest rendition (picture height) the grant covers',
    schema: { type: 'string' },
  },
  { name: 's', in: 'query' as const, required: true, description: 'HMAC-SHA256 signature', schema: { type: 'string' } },
];

/** The OpenAPI description of one signed HLS file route (not JSON: a playlist, segment, image or key). */
function hlsDoc(summary: string, params: z.ZodObject, type: string, parameters = GRANT_PARAMS) {
  return describe({
    summary,
    description:
      'Use the `hlsUrl`/`previewsUrl` from GET /videos/{id}/stream as they are: every URI inside carries what it needs. Refused without a valid signature or token (403).',
    tags: ['streaming'],
    access: 'signedUrl',
    params,
    parameters,
    responses: { 200: { description: summary, content: { [type]: { schema: { type: 'string' } } } } },
    errors: [403, 404],
  });
}

const idOnly = z.object({ id: z.string() });

/** The path prefix of a video's HLS files. */
export const hlsBase = (videoId: string) => `/api/hls/${encodeURIComponent(videoId)}`;

export const hlsRoutes: Routes = (api, ctx) => {
  /** 1. The signature; 2. a live video with a ladder; 3. the renditions the grant covers. */
  async function granted(c: Context<AppEnv>) {
    const videoId = videoIdParam(c);
    const check = verifyHlsGrant(ctx, videoId, { u: c.req.query('u'), e: c.req.query('e'), m: c.req.query('m'), s: c.req.query('s') });
    if (!check.ok)
      throw check.reason === 'expired'
        ? new HttpError('stream.link_expired', STREAM_LINK_EXPIRED)
        : new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
    // The grant's viewer: a delivered custom video exists for its requester (and admins) only.
    const row = await findVideo(ctx.db, videoId, { viewerId: check.grant.userId });
    const ladder = row ? hlsLadderOf(row) : null;
    if (!row || !ladder) throw new HttpError('video.not_found', 'Video not found');
    const allowed = entitledRenditions(ladder.renditions, check.grant.maxHeight);
    // Passed on to the URIs we write: only the verified grant's own fields, never other request parameters.
    const query = new URLSearchParams({
      u: check.grant.userId,
      e: String(check.grant.expires),
      m: String(check.grant.maxHeight),
      s: c.req.query('s') ?? '',
    }).toString();
    return { videoId, row, grant: check.grant as HlsGrant, ladder, allowed, query };
  }

  const keyOfFile = (videoId: string, file: string) => `videos/${videoId}/hls/${file}`;

  /** A stored playlist or WebVTT, or null when missing (or not a media key at all). */
  async function readStoredText(key: string): Promise<string | null> {
    try {
      return await ctx.media.readText(key);
    } catch (err) {
      if (err instanceof MediaStoreError) throw err;
      return null;
    }
  }

  function rendition(c: Context<AppEnv>, allowed: { name: string }[]) {
    const name = c.req.param('rendition') ?? '';
    // A rendition above the grant is refused like a forged link: the URL was not signed for it.
    if (!allowed.some((r) => r.name === name)) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
    return name;
  }

  function text(c: Context<AppEnv>, body: string, type: string) {
    c.header('Content-Type', type);
    // Per viewer and carrying a key token: never stored by a browser or a proxy.
    c.header('Cache-Control', 'private, no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(body, 200);
  }

  /** The grant's renditions the viewer may still watch now (the access decision made again, cached). */
  async function stillAllowed(c: Context<AppEnv>, g: Awaited<ReturnType<typeof granted>>) {
    const { maxHeight } = await recheckAccess(ctx, g.videoId, g.grant.userId, geoCheckFor(c, ctx).blocked);
    return maxHeight >= g.grant.maxHeight ? g.allowed : entitledRenditions(g.ladder.renditions, maxHeight);
  }

  api.get(
    '/hls/:id/master.m3u8',
    hlsDoc('The master playlist: the renditions this member may watch', idOnly, PLAYLIST_TYPE),
    async function hlsMaster(c) {
      const g = await granted(c);
      const captions = JSON.parse(g.row.captions ?? '[]') as { language: string; label: string }[];
      return text(c, masterPlaylist(await stillAllowed(c, g), g.query, captions), PLAYLIST_TYPE);
    },
  );

  /** The signed grant, the access decision again, and the track's stored WebVTT. */
  async function captionTrack(c: Context<AppEnv>) {
    const g = await granted(c);
    const allowed = await stillAllowed(c, g);
    // A viewer the decision now refuses keeps no rendition: the captions stop with the video.
    if (allowed.length === 0) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
    const track = await captionOf(ctx.db, g.videoId, c.req.param('language') ?? '');
    if (!track) throw new HttpError('caption.not_found', 'Caption track not found');
    return { g, track };
  }

  const captionParams = z.object({ id: z.string(), language: z.string() });
  api.get(
    '/hls/:id/captions/:language/index.m3u8',
    hlsDoc("A caption track's media playlist (one WebVTT segment)", captionParams, PLAYLIST_TYPE),
    async function hlsCaptionPlaylist(c) {
      const { g } = await captionTrack(c);
      return text(c, captionMediaPlaylist(Number(g.row.duration_seconds), g.query), PLAYLIST_TYPE);
    },
  );

  api.get(
    '/hls/:id/captions/:language/captions.vtt',
    hlsDoc("A caption track's WebVTT segment", captionParams, 'text/vtt'),
    async function hlsCaptionSegment(c) {
      const { track } = await captionTrack(c);
      const stored = await readStoredText(track.caption_key);
      if (stored === null) throw new HttpError('caption.not_found', 'Caption track not found');
      return text(c, captionSegment(stored), 'text/vtt; charset=utf-8');
    },
  );

  api.get(
    '/hls/:id/:rendition{[0-9]+p}/index.m3u8',
    hlsDoc(
      "A rendition's media playlist (signed segments, key URI with a short-lived token)",
      z.object({ id: z.string(), rendition: z.string() }),
      PLAYLIST_TYPE,
    ),
    async function hlsMediaPlaylist(c) {
      const g = await granted(c);
      const { videoId, grant, query } = g;
      const name = rendition(c, await stillAllowed(c, g));
      const stored = await readStoredText(keyOfFile(videoId, `${name}/index.m3u8`));
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

  // One parameter for "{rendition}-seg_NNNNN.ts": a segment URL has two parameters, not three.
  api.get(
    '/hls/:id/segments/:segment{[0-9]+p-seg_[0-9]+b?\\.ts}',
    hlsDoc(
      'An AES-128 encrypted MPEG-TS segment ({rendition}-seg_NNNNN.ts; a marked ladder also has variant B, seg_NNNNNb.ts)',
      z.object({ id: z.string(), segment: z.string() }),
      'video/mp2t',
    ),
    async function hlsSegment(c) {
      const { videoId, grant, allowed } = await granted(c);
      const segment = c.req.param('segment') ?? '';
      const [name, file] = [segment.slice(0, segment.indexOf('-')), segment.slice(segment.indexOf('-') + 1)];
      if (!allowed.some((r) => r.name === name)) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
      return sendStoredFile(c, ctx, keyOfFile(videoId, `${name}/${file}`), 'video/mp2t', grant.expires, SHARED_CACHE);
    },
  );

  api.get('/hls/:id/previews.vtt', hlsDoc('Seek previews: WebVTT of sprite tiles', idOnly, 'text/vtt'), async function hlsPreviews(c) {
    const { videoId, query } = await granted(c);
    const stored = await readStoredText(keyOfFile(videoId, 'previews.vtt'));
    if (stored === null) throw new HttpError('video.not_found', 'Video not found');
    return text(c, rewritePreviewsVtt(stored, query), 'text/vtt; charset=utf-8');
  });

  api.get(
    '/hls/:id/sprites/:sprite{sprite-[0-9][0-9][0-9]\\.jpg}',
    hlsDoc('A seek-preview sprite sheet', z.object({ id: z.string(), sprite: z.string() }), 'image/jpeg'),
    async function hlsSprite(c) {
      const { videoId, grant } = await granted(c);
      return sendStoredFile(c, ctx, keyOfFile(videoId, `sprites/${c.req.param('sprite')}`), 'image/jpeg', grant.expires);
    },
  );

  api.get(
    '/hls/:id/key',
    hlsDoc("The video's AES-128 key (16 bytes, no-store), to a member the access decision allows", idOnly, 'application/octet-stream', [
      GRANT_PARAMS[0] as (typeof GRANT_PARAMS)[number],
      GRANT_PARAMS[1] as (typeof GRANT_PARAMS)[number],
      { name: 't', in: 'query', required: true, description: 'Key token', schema: { type: 'string' } },
      {
        name: 'w',
        in: 'query',
        required: false,
        description: 'The key window (absent: the video key of a ladder made before windows)',
        schema: { type: 'string' },
      },
    ]),
    async function hlsKey(c) {
      c.header('Cache-Control', 'no-store');
      // 1. The short-lived token.
      const videoId = videoIdParam(c);
      const check = verifyKeyToken(ctx, videoId, { u: c.req.query('u'), e: c.req.query('e'), t: c.req.query('t') });
      if (!check.ok)
        throw check.reason === 'expired'
          ? new HttpError('stream.link_expired', STREAM_LINK_EXPIRED)
          : new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
      const w = c.req.query('w');
      if (w !== undefined && !/^\d{1,6}$/.test(w)) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
      // 2. The access decision as it stands now (never cached), for the token's viewer and this request's region.
      const decision = await authorizeViewing(ctx, { videoId, userId: check.grant.userId, regionBlocked: geoCheckFor(c, ctx).blocked });
      // An account that no longer exists: the link is not valid (not a sign-in prompt).
      if (!decision.ok && decision.error.status === 401) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
      valueOr(decision);
      const key = await keyOf(ctx.db, videoId);
      if (!key) throw new HttpError('video.not_found', 'Video not found');
      c.header('Content-Type', 'application/octet-stream');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(new Uint8Array(w === undefined ? key.key : windowKey(key.key, Number(w))), 200);
    },
  );
};
