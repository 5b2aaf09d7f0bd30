/**
 * GET /api/videos/{id}/stream → `{ streamUrl, hlsUrl, previewsUrl, qualities, watermarkText }` when the
 * access decision allows (`hlsUrl` null until the video is transcoded). `streamUrl`, the player's
 * fallback, never exceeds the viewer's cap: an admin gets the original, a member the progressive MP4 of
 * the tallest rendition they are entitled to, or null where none fits (not transcoded yet, a ladder
 * made before progressive files existed, a cap below the smallest rendition);
 * POST /api/videos/{id}/view `{ duration }` counts a view under the same decision;
 * POST /api/videos/{id}/watch-time `{ seconds }` records played seconds under the same decision;
 * GET /api/videos/{id}/captions/{language} a caption track's WebVTT (a `<track>` for progressive
 * playback), under the same decision: with the signed grant of the stream's `captions[].url` (a
 * `<track>` cannot send a bearer token) or with the caller's own token.
 */
import { streamInfoSchema, viewAnswerSchema, watchTimeAnswerSchema } from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { z } from 'zod';
import { captionOf, type HlsLadder, hlsLadderOf, type VideoRow, videoParams } from '../catalog/index.js';
import { geoCheckFor } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { captionGrant } from './credentials.js';
import { entitledRenditions } from './entitlement.js';
import { hlsBase } from './hls.routes.js';
import { signHlsGrant } from './hlsSignature.js';
import { type StreamFile, signStreamPath } from './streamSignature.js';
import { authorizeViewing, recordView, recordWatchTime, renditionEntitlement, type Viewer } from './viewing.service.js';
import { MAX_REPORT_SECONDS } from './watchTime.decider.js';

const viewSchema = z.object({
  duration: z
    .number()
    .finite()
    .min(0)
    .max(24 * 3600),
});
const watchTimeSchema = z.object({
  seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0)
    .max(MAX_REPORT_SECONDS, `must be at most ${MAX_REPORT_SECONDS} seconds per report`),
});

/** Identifies the viewer on screen so a leaked recording can be traced. */
export const watermarkFor = (viewer: { id: string; email: string }) => `${viewer.email} · ${viewer.id.slice(0, 8)}`;

/**
 * The progressive file this viewer gets (pure): the original for an admin; for a member the
 * progressive MP4 of the tallest rendition within their cap, or none.
 */
export function progressiveFileFor(ladder: HlsLadder | null, viewer: Pick<Viewer, 'role'>, maxHeight: number): StreamFile | null {
  if (viewer.role === 'admin') return 'original';
  const fits = (ladder?.renditions ?? []).filter((r) => r.progressive && r.height <= maxHeight);
  const tallest = fits.sort((a, b) => b.height - a.height)[0];
  return tallest ? (tallest.name as StreamFile) : null;
}

/** The progressive caption route of a track. */
export const captionPath = (videoId: string, language: string) =>
  `/api/videos/${encodeURIComponent(videoId)}/captions/${encodeURIComponent(language)}`;

export const streamRoutes: Routes = (api, ctx) => {
  /** The access decision for this request's caller and region, or its refusal. */
  async function authorize(c: Context<AppEnv>, videoId: string) {
    const request = { videoId, userId: c.get('auth')?.userId, regionBlocked: geoCheckFor(c, ctx).blocked };
    return valueOr(await authorizeViewing(ctx, request));
  }
  /**
   * The viewing routes' access: the decision for this request's caller on the video the path names
   * (before the body, so a visitor gets 401); what it allowed is the handler's `grantOf(c, viewingDecision)`.
   */
  const viewingDecision: Credential<{ video: VideoRow; viewer: Viewer }> = {
    who: 'Signed-in members and admins (bearer access token) the access decision of spec §4 allows. A video not out yet (unpublished or scheduled) is previewed only by staff with the `videos` permission; any other staff role is refused with 403 `auth.permission_required`.',
    bearer: true,
    verify: (c, { param }) => authorize(c, String(param.id)),
  };
  const viewing = { access: { decision: viewingDecision } } as const;
  const decisionOf = (c: Context<AppEnv, any, any>) => grantOf(c, viewingDecision);

  const getStreamDoc = describe({
    summary: 'A signed, expiring URL of the video bytes, when the access decision allows',
    description:
      'Refusals in spec §4 order with its messages: 401 not signed in, 403 pending/rejected/no subscription/plan too low/blocked region, 404 unknown video.',
    tags: ['streaming'],
    ...viewing,
    ...videoParams,
    ok: { 200: streamInfoSchema },
    errors: [404],
  });
  const countViewDoc = describe({
    summary: 'Count a view (after more than 5 s; once per member per video per 30 minutes)',
    description: "An admin's preview is answered but not counted (`counted: false`): the creator's figures are the members'.",
    tags: ['streaming'],
    ...viewing,
    ...videoParams,
    body: viewSchema,
    ok: { 200: viewAnswerSchema },
    errors: [404],
  });

  /** The adaptive stream once the ladder exists: the master lists only what this viewer may watch. */
  function adaptiveStream(video: VideoRow, ladder: HlsLadder | null, viewer: Viewer, maxHeight: number) {
    const { query } = signHlsGrant(ctx, video.id, viewer.id, maxHeight);
    const tracks = JSON.parse(video.captions ?? '[]') as { language: string; label: string }[];
    const captions = tracks.map((t) => ({ ...t, url: `${captionPath(video.id, t.language)}?${query}` }));
    if (!ladder) return { hlsUrl: null, previewsUrl: null, qualities: [] as string[], captions };
    return {
      captions,
      hlsUrl: `${hlsBase(video.id)}/master.m3u8?${query}`,
      previewsUrl: ladder.previews ? `${hlsBase(video.id)}/previews.vtt?${query}` : null,
      qualities: entitledRenditions(ladder.renditions, maxHeight).map((r) => r.name),
    };
  }

  api.get('/videos/:id/stream', getStreamDoc, async function getStream(c) {
    const { video, viewer } = decisionOf(c);
    // The viewer's plan caps renditions: without a ladder there is none to cap (a member gets no
    // progressive file, an admin the original, no HLS), so the plan is not read.
    const ladder = hlsLadderOf(video);
    const maxHeight = ladder ? await renditionEntitlement(ctx, video, viewer) : 0;
    const file = progressiveFileFor(ladder, viewer, maxHeight);
    const signed = file ? signStreamPath(ctx, video.id, viewer.id, file) : null;
    c.header('Cache-Control', 'private, no-store');
    const hls = adaptiveStream(video, ladder, viewer, maxHeight);
    // Every URL handed out here expires together (STREAM_URL_TTL_SECONDS from now). Same-origin paths,
    // never an absolute URL: nothing here follows the request's Host or X-Forwarded-Host, and the page's
    // CSP (`'self'`) allows them whatever address it was loaded from.
    const expiresAt =
      signed?.expiresAt ?? new Date((Math.floor(ctx.clock.now().getTime() / 1000) + ctx.env.STREAM_URL_TTL_SECONDS) * 1000).toISOString();
    return ok(c, { streamUrl: signed ? signed.path : null, ...hls, watermarkText: watermarkFor(viewer), expiresAt });
  });

  const getCaptionsDoc = describe({
    summary: "A caption track's WebVTT, when the access decision allows",
    description:
      'For a `<track>` element: use `captions[].url` from GET /videos/{id}/stream as it is (signed like the HLS URLs), or send the bearer token. `text/vtt`, `Cache-Control: private`.',
    tags: ['streaming'],
    access: { signedUrl: captionGrant(ctx, authorize) },
    ...videoParams,
    params: videoParams.params.extend({ language: z.string() }),
    responses: { 200: { description: 'The WebVTT', content: { 'text/vtt': { schema: { type: 'string' } } } } },
    errors: [403, 404],
  });

  api.get('/videos/:id/captions/:language', getCaptionsDoc, async function getCaptions(c) {
    const { id, language } = c.req.valid('param');
    const track = await captionOf(ctx.db, id, language);
    if (!track) throw new HttpError('caption.not_found', 'Caption track not found');
    const vtt = await ctx.media.readText(track.caption_key);
    if (vtt === null) throw new HttpError('caption.not_found', 'Caption track not found');
    // The key names the content (a hash): the same URL answers the same bytes until it is replaced.
    const etag = `"c-${/\.([0-9a-f]{8})\.vtt$/.exec(track.caption_key)?.[1] ?? '0'}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'private, max-age=300');
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('Content-Type', 'text/vtt; charset=utf-8');
    return c.body(vtt, 200);
  });

  api.post('/videos/:id/view', countViewDoc, async function countView(c) {
    const { viewer, video } = decisionOf(c);
    const { duration } = c.req.valid('json');
    const counted = await recordView(
      ctx,
      { videoId: video.id, viewerId: viewer.id, watchedSeconds: duration, preview: viewer.role === 'admin' },
      { actorId: viewer.id, requestId: c.get('requestId') },
    );
    return ok(c, valueOr(counted));
  });

  const reportWatchTimeDoc = describe({
    summary: 'Report seconds played (the player sends them every 30 s of playback and on pause or leaving)',
    description: `At most ${MAX_REPORT_SECONDS} s per report, and credited at most the whole seconds since this viewer's previous recorded report on this video (\`recordedSeconds\` says what counted), so watch time grows no faster than wall time per viewer. Same access decision as viewing; an admin's preview records nothing (\`recordedSeconds: 0\`).`,
    tags: ['streaming'],
    ...viewing,
    ...videoParams,
    body: watchTimeSchema,
    ok: { 200: watchTimeAnswerSchema },
    errors: [404],
  });

  api.post('/videos/:id/watch-time', reportWatchTimeDoc, async function reportWatchTime(c) {
    const { viewer, video } = decisionOf(c);
    const { seconds } = c.req.valid('json');
    const recorded = await recordWatchTime(
      ctx,
      { videoId: video.id, viewerId: viewer.id, seconds, preview: viewer.role === 'admin' },
      { actorId: viewer.id, requestId: c.get('requestId') },
    );
    return ok(c, valueOr(recorded));
  });
};
