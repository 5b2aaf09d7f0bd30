/**
 * Live shows' routes (issue 43):
 *
 *   GET  /admin/live/shows             every show, its status and replay (no key)
 *   POST /admin/live/shows             schedule a show → its ingest URL and stream key (shown once)
 *   POST /admin/live/shows/{id}/key    a new stream key (the old one stops working)
 *   POST /admin/live/shows/{id}/end    end the show (the encoder is disconnected within 2 s)
 *   GET  /live/shows                   upcoming, live and just-ended shows, and whether the caller may watch
 *   GET  /live/shows/{id}/stream       the signed master playlist while live, under spec §4's decision
 *                                      (the videos' codes and messages); the status and the player's words otherwise
 *   GET  /live/hls/{id}/…              the live HLS, signed per viewer like a video's (streaming/hls.routes.ts):
 *                                      master.m3u8 (the renditions the grant covers), {rendition}/index.m3u8
 *                                      (the sliding window, rechecked against the decision), segments/…ts
 *                                      (AES-128, shared and cacheable), key?u&e&t&w (the decision now, no-store)
 */
import {
  adminLiveShowAnswerSchema,
  adminLiveShowsAnswerSchema,
  LIVE_ENDED,
  LIVE_NOT_STARTED,
  LIVE_STARTING,
  liveShowsAnswerSchema,
  liveStreamInfoSchema,
  scheduleLiveShowSchema,
} from '@members/ui/api/schemas';
import { entitledRenditions } from '@members/ui/entitlement';
import type { Context } from 'hono';
import { z } from 'zod';
import { geoCheckFor } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf, userOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { type Credential, describe, grantOf } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import { findMemberStanding } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import {
  SHARED_CACHE,
  STREAM_LINK_EXPIRED,
  STREAM_LINK_INVALID,
  sendStoredFile,
  signHlsGrant,
  signKeyToken,
  verifyHlsGrant,
  verifyKeyToken,
  watermarkFor,
} from '../streaming/index.js';
import { keyOf, windowKey } from '../transcode/index.js';
import { liveMasterPlaylist, rewriteLivePlaylist } from './liveLadder.js';
import { liveMediaId } from './rtmpIngest.js';
import type { LiveRenditionInfo } from './show.decider.js';
import { findShow, listAllShows, listShows, type ShowRow } from './show.projection.js';
import {
  authorizeShowViewing,
  decideShowAccess,
  endShow,
  ingestUrlOf,
  rotateShowKey,
  type ShowViewing,
  scheduleShow,
} from './shows.service.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
export const liveHlsBase = (showId: string) => `/api/live/hls/${encodeURIComponent(showId)}`;

/** Where the ingest stores a rendition's live playlist (rtmpIngest.ts). */
const livePlaylistKey = (showId: string, rendition: string) => `videos/${liveMediaId(showId)}/hls/${rendition}/index.m3u8`;

const renditionsOf = (show: ShowRow): LiveRenditionInfo[] => JSON.parse(show.renditions ?? '[]') as LiveRenditionInfo[];

function adminView(ctx: AppContext, show: ShowRow, streamKey?: string) {
  return {
    id: show.id,
    title: show.title,
    description: show.description,
    status: show.status,
    accessLevel: show.access_level,
    exclusiveTo: show.exclusive_to,
    startsAt: show.starts_at,
    saveReplay: !!Number(show.save_replay),
    startedAt: show.started_at,
    endedAt: show.ended_at,
    replayVideoId: show.replay_video_id,
    ingestUrl: ingestUrlOf(ctx),
    ...(streamKey && { streamKey }),
  };
}

function adminRoutes(api: Parameters<Routes>[0], ctx: AppContext) {
  const scheduleDoc = describe({
    summary: 'Schedule a live show: its OBS server URL and stream key (shown this once)',
    description:
      'The key is stored as its SHA-256 only: keep it from this answer or rotate it (POST /admin/live/shows/{id}/key). OBS: Settings → Stream → Service "Custom", Server = `ingestUrl`, Stream Key = `streamKey` (docs/live.md).',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'videos',
    body: scheduleLiveShowSchema,
    ok: { 201: adminLiveShowAnswerSchema },
  });
  api.post('/admin/live/shows', scheduleDoc, async function scheduleLiveShow(c) {
    const body = c.req.valid('json');
    const { show, streamKey } = valueOr(await scheduleShow(ctx, body, { ...callerOf(c), actorId: userOf(c).id }));
    c.header('Cache-Control', 'no-store');
    return ok(c, { show: adminView(ctx, show, streamKey) }, 201);
  });

  const listDoc = describe({
    summary: 'Every live show (the last 200 by start), with its status, times and replay; never a stream key',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'videos',
    ok: { 200: adminLiveShowsAnswerSchema },
  });
  api.get('/admin/live/shows', listDoc, async function listAdminLiveShows(c) {
    return ok(c, { shows: (await listAllShows(ctx.db)).map((show) => adminView(ctx, show)) });
  });

  const rotateDoc = describe({
    summary: "A new stream key for the show (the old one is refused from now on; a live encoder's connection stays)",
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'videos',
    params: idParams,
    ok: { 200: adminLiveShowAnswerSchema },
    errors: [404, 409],
  });
  api.post('/admin/live/shows/:id/key', rotateDoc, async function rotateLiveShowKey(c) {
    const { id } = c.req.valid('param');
    const streamKey = valueOr(await rotateShowKey(ctx, id, { ...callerOf(c), actorId: userOf(c).id }));
    const show = await findShow(ctx.db, id);
    if (!show) throw new HttpError('live.show_not_found', 'Live show not found');
    c.header('Cache-Control', 'no-store');
    return ok(c, { show: adminView(ctx, show, streamKey) });
  });

  const endDoc = describe({
    summary: 'End the show: the encoder is disconnected, the playlists end, the replay (if kept) goes to the library unpublished',
    tags: ['live', 'admin'],
    access: 'admin',
    permission: 'videos',
    params: idParams,
    ok: { 200: adminLiveShowAnswerSchema },
    errors: [404],
  });
  api.post('/admin/live/shows/:id/end', endDoc, async function endLiveShow(c) {
    const { id } = c.req.valid('param');
    const show = valueOr(await endShow(ctx, id, 'admin', callerOf(c)));
    return ok(c, { show: adminView(ctx, show) });
  });
}

function memberRoutes(api: Parameters<Routes>[0], ctx: AppContext) {
  const listDoc = describe({
    summary: 'Upcoming and live shows (and those ended in the last day), and whether the caller may watch each',
    tags: ['live'],
    access: 'member',
    ok: { 200: liveShowsAnswerSchema },
  });
  api.get('/live/shows', listDoc, async function listLiveShows(c) {
    const viewer = await findMemberStanding(ctx.db, userOf(c).id);
    const regionBlocked = geoCheckFor(c, ctx).blocked;
    const since = new Date(ctx.clock.now().getTime() - 86_400_000).toISOString();
    const rows = await listShows(ctx.db, since);
    const shows = [];
    for (const show of rows) {
      const { decision } = await decideShowAccess(ctx, show, viewer, regionBlocked);
      shows.push({
        id: show.id,
        title: show.title,
        description: show.description,
        status: show.status,
        accessLevel: show.access_level,
        exclusiveTo: show.exclusive_to,
        startsAt: show.starts_at,
        mayWatch: decision.allowed,
      });
    }
    return ok(c, { shows });
  });

  const viewingDecision = showViewingCredential(ctx);
  const streamDoc = describe({
    summary: "The show's signed live playlist while it is live, when the access decision allows",
    description:
      'Refusals as for a video (spec §4 order, codes and messages): 401 not signed in, 403 pending/no subscription/plan too low/blocked region, 404 unknown show. Before the show, while it starts (until every rendition the viewer may watch has its first segments) and after it: `hlsUrl` null and the words the player shows.',
    tags: ['live'],
    access: { decision: viewingDecision },
    params: idParams,
    ok: { 200: liveStreamInfoSchema },
    errors: [404],
  });
  api.get('/live/shows/:id/stream', streamDoc, async function liveShowStream(c) {
    const { show, viewer, maxHeight } = grantOf(c, viewingDecision);
    const { query, expiresAt } = signHlsGrant(ctx, liveMediaId(show.id), viewer.id, maxHeight);
    const renditions = show.status === 'live' ? entitledRenditions(renditionsOf(show), maxHeight) : [];
    // Live from the encoder's first packet, playable from its first segments: until every rendition
    // this viewer may watch has its playlist, no URL (a player would be answered 404 and log it).
    const playable =
      renditions.length > 0 &&
      (await Promise.all(renditions.map((r) => ctx.media.stat(livePlaylistKey(show.id, r.name)).catch(() => null)))).every(Boolean);
    c.header('Cache-Control', 'private, no-store');
    return ok(c, {
      status: show.status,
      hlsUrl: playable ? `${liveHlsBase(show.id)}/master.m3u8?${query}` : null,
      qualities: renditions.map((r) => r.name),
      message: show.status === 'scheduled' ? LIVE_NOT_STARTED : show.status === 'ended' ? LIVE_ENDED : playable ? null : LIVE_STARTING,
      watermarkText: watermarkFor(viewer),
      expiresAt,
    });
  });
}

const field = (description: string) => z.string().optional().describe(description);
const hlsQuery = z.object({
  u: field('The member the grant was signed for'),
  e: field('Expiry (Unix seconds)'),
  m: field('Tallest rendition (picture height) the grant covers'),
  s: field('HMAC-SHA256 signature'),
});
const keyQuery = z.object({
  u: field('The member the grant was signed for'),
  e: field('Expiry (Unix seconds)'),
  t: field('Key token'),
  w: field('The key window'),
});

const linkInvalid = () => new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
const refused = (reason: 'invalid' | 'expired') =>
  reason === 'expired' ? new HttpError('stream.link_expired', STREAM_LINK_EXPIRED) : linkInvalid();

interface LiveHlsAccess {
  show: ShowRow;
  userId: string;
  expires: number;
  allowed: LiveRenditionInfo[];
  query: string;
}

/** A live HLS grant: its signature, the show, and (`recheck`) the access decision made again for the playlists. */
/** The caller the spec §4 access decision allows to watch the show in the path: the stream route's and the chat room's credential. */
export function showViewingCredential(ctx: AppContext): Credential<ShowViewing> {
  return {
    who: 'Signed-in members and admins (bearer access token) the access decision of spec §4 allows for the show.',
    bearer: true,
    verify: async (c, { param }) =>
      valueOr(
        await authorizeShowViewing(ctx, {
          showId: String(param.id),
          userId: c.get('auth')?.userId,
          regionBlocked: geoCheckFor(c, ctx).blocked,
        }),
      ),
  };
}

function liveGrant(ctx: AppContext, opts: { recheck: boolean }): Credential<LiveHlsAccess, typeof hlsQuery> {
  return {
    who: 'No token: the signed, expiring grant (`u`, `e`, `m`, `s`) of the `hlsUrl` from GET /live/shows/{id}/stream authorizes it.',
    query: hlsQuery,
    required: ['u', 'e', 'm', 's'],
    async verify(c, { param, query }) {
      const showId = String(param.id);
      const check = verifyHlsGrant(ctx, liveMediaId(showId), query);
      if (!check.ok) throw refused(check.reason);
      const { grant } = check;
      let maxHeight = grant.maxHeight;
      let show = await findShow(ctx.db, showId);
      if (opts.recheck) {
        // The playlists make the decision again: a grant outlives an erasure or a lapsed plan only until the next refresh.
        const viewing = await authorizeShowViewing(ctx, { showId, userId: grant.userId, regionBlocked: geoCheckFor(c, ctx).blocked });
        if (!viewing.ok) throw linkInvalid();
        show = viewing.value.show;
        maxHeight = Math.min(maxHeight, viewing.value.maxHeight);
      }
      if (!show || show.status === 'scheduled') throw new HttpError('live.show_not_found', 'Live show not found');
      const allowed = entitledRenditions(renditionsOf(show), maxHeight);
      const name =
        typeof param.rendition === 'string'
          ? param.rendition
          : typeof param.segment === 'string'
            ? param.segment.slice(0, param.segment.indexOf('-'))
            : undefined;
      if (name !== undefined && !allowed.some((r) => r.name === name)) throw linkInvalid();
      const signed = new URLSearchParams({ u: grant.userId, e: String(grant.expires), m: String(grant.maxHeight), s: query.s ?? '' });
      return { show, userId: grant.userId, expires: grant.expires, allowed, query: signed.toString() };
    },
  };
}

/** The key URL: its token, and the access decision now, for every window (never cached). */
function liveKeyToken(ctx: AppContext): Credential<{ showId: string; window: number }, typeof keyQuery> {
  return {
    who: 'No token: the key token (`u`, `e`, `t`) the live playlist wrote into its key URI, and the access decision allows its member now.',
    query: keyQuery,
    required: ['u', 'e', 't', 'w'],
    async verify(c, { param, query }) {
      c.header('Cache-Control', 'no-store');
      const showId = String(param.id);
      const check = verifyKeyToken(ctx, liveMediaId(showId), query);
      if (!check.ok) throw refused(check.reason);
      if (!query.w || !/^\d{1,7}$/.test(query.w)) throw linkInvalid();
      const viewing = await authorizeShowViewing(ctx, { showId, userId: check.grant.userId, regionBlocked: geoCheckFor(c, ctx).blocked });
      if (!viewing.ok && viewing.error.status === 401) throw linkInvalid();
      valueOr(viewing);
      return { showId, window: Number(query.w) };
    },
  };
}

function text(c: Context<AppEnv>, body: string) {
  c.header('Content-Type', PLAYLIST_TYPE);
  c.header('Cache-Control', 'private, no-store');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(body, 200);
}

function hlsDoc<P extends z.ZodObject>(summary: string, params: P, type: string, credential: Credential<any, any>) {
  return describe({
    summary,
    description:
      'Use the `hlsUrl` from GET /live/shows/{id}/stream as it is: every URI inside carries what it needs. Refused without a valid signature or token (403).',
    tags: ['live'],
    access: { signedUrl: credential },
    params,
    responses: { 200: { description: summary, content: { [type]: { schema: { type: 'string' } } } } },
    errors: [403, 404],
  });
}

function hlsRoutes(api: Parameters<Routes>[0], ctx: AppContext) {
  const rechecked = liveGrant(ctx, { recheck: true });
  const granted = liveGrant(ctx, { recheck: false });
  const token = liveKeyToken(ctx);
  const id = idParams;

  api.get(
    '/live/hls/:id/master.m3u8',
    hlsDoc("The show's master playlist: the renditions this member may watch", id, PLAYLIST_TYPE, rechecked),
    async function liveMaster(c) {
      const g = grantOf(c, rechecked);
      return text(c, liveMasterPlaylist(g.allowed, g.query));
    },
  );

  api.get(
    '/live/hls/:id/:rendition{[0-9]+p}/index.m3u8',
    hlsDoc(
      "A rendition's live playlist (the sliding window; signed segments, key URIs with a short-lived token)",
      id.extend({ rendition: z.string() }),
      PLAYLIST_TYPE,
      rechecked,
    ),
    async function livePlaylistRoute(c) {
      const g = grantOf(c, rechecked);
      const name = c.req.valid('param').rendition;
      const stored = await ctx.media.readText(livePlaylistKey(g.show.id, name)).catch(() => null);
      if (stored === null) throw new HttpError('live.show_not_found', 'The show’s first segments are not ready yet');
      const keyUri = `${liveHlsBase(g.show.id)}/key?${signKeyToken(ctx, liveMediaId(g.show.id), g.userId, g.expires)}`;
      return text(c, rewriteLivePlaylist(stored, name, g.query, keyUri));
    },
  );

  api.get(
    '/live/hls/:id/segments/:segment{[0-9]+p-seg_[0-9]+\\.ts}',
    hlsDoc(
      'An AES-128 encrypted MPEG-TS segment of the show ({rendition}-seg_NNNNN.ts)',
      id.extend({ segment: z.string() }),
      'video/mp2t',
      granted,
    ),
    async function liveSegment(c) {
      const g = grantOf(c, granted);
      const { segment } = c.req.valid('param');
      const [name, file] = [segment.slice(0, segment.indexOf('-')), segment.slice(segment.indexOf('-') + 1)];
      return sendStoredFile(c, ctx, `videos/${liveMediaId(g.show.id)}/hls/${name}/${file}`, 'video/mp2t', g.expires, SHARED_CACHE);
    },
  );

  api.get(
    '/live/hls/:id/key',
    hlsDoc(
      "A key window's AES-128 key (16 bytes, no-store), to a member the access decision allows now",
      id,
      'application/octet-stream',
      token,
    ),
    async function liveKey(c) {
      const { showId, window } = grantOf(c, token);
      const key = await keyOf(ctx.db, liveMediaId(showId));
      if (!key) throw new HttpError('live.show_not_found', 'Live show not found');
      c.header('Content-Type', 'application/octet-stream');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(new Uint8Array(windowKey(key.key, window)), 200);
    },
  );
}

export const liveRoutes: Routes = (api, ctx) => {
  adminRoutes(api, ctx);
  memberRoutes(api, ctx);
  hlsRoutes(api, ctx);
};
