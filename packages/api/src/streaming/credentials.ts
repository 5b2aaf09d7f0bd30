/**
 * The credentials of the streaming routes (http/openapi.ts `Credential`): each signature scheme,
 * checked by the route's `describe` before its handler, which reads what it granted with
 * `grantOf(c, credential)`. Each refuses with the progressive media route's messages
 * (linkMessages.ts): "not valid" for a forged, tampered or foreign link, "expired" past its expiry.
 *
 * - `hlsGrant`: the HLS grant (`u`, `e`, `m`, `s`: hlsSignature.ts) of every URL under `/api/hls/{id}/`,
 *   the live video and its ladder, the renditions the grant covers (with `recheck`, the access
 *   decision made again: accessRecheck.ts), and the rendition the path names among them;
 * - `keyToken`: the AES key URL's token (`u`, `e`, `t`) and window (`w`), and the access decision now;
 * - `mediaUrl`: the progressive media URL (`u`, `e`, `r`, `s`: streamSignature.ts), the access decision
 *   again, and the signed file if this viewer may still have it;
 * - `captionGrant`: a caption track's `<track>` URL (the HLS grant), or the caller's own bearer token.
 */
import { z } from 'zod';
import { findVideo, type HlsLadder, hlsLadderOf, type RenditionInfo, type VideoRow } from '../catalog/index.js';
import { geoCheckFor } from '../geo/index.js';
import { HttpError, valueOr } from '../http/envelope.js';
import type { Credential } from '../http/openapi.js';
import type { AppContext } from '../kernel/context.js';
import { recheckAccess } from './accessRecheck.js';
import { entitledRenditions } from './entitlement.js';
import { type HlsGrant, verifyHlsGrant, verifyKeyToken } from './hlsSignature.js';
import { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './linkMessages.js';
import { verifyStreamSignature } from './streamSignature.js';
import { authorizeViewing } from './viewing.service.js';

const field = (description: string) => z.string().optional().describe(description);
const hlsQuery = z.object({
  u: field('The member the grant was signed for'),
  e: field('Expiry (Unix seconds)'),
  m: field('Tallest rendition (picture height) the grant covers'),
  s: field('HMAC-SHA256 signature'),
});

/** A failed signature check as its refusal. */
function refused(reason: 'invalid' | 'expired'): HttpError {
  return reason === 'expired'
    ? new HttpError('stream.link_expired', STREAM_LINK_EXPIRED)
    : new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
}

const linkInvalid = () => new HttpError('stream.link_invalid', STREAM_LINK_INVALID);

/** What an HLS grant opens: the video, its ladder, the renditions this viewer may watch, the query the URIs we write carry. */
export interface HlsAccess {
  videoId: string;
  row: VideoRow;
  grant: HlsGrant;
  ladder: HlsLadder;
  allowed: RenditionInfo[];
  /** Passed on to the URIs we write: only the verified grant's own fields, never other request parameters. */
  query: string;
}

/** The rendition a path names: `{rendition}` itself, or the `{rendition}-seg_NNNNN.ts` of a segment. */
function renditionOf(param: Record<string, unknown>): string | undefined {
  if (typeof param.rendition === 'string') return param.rendition;
  if (typeof param.segment === 'string') return param.segment.slice(0, param.segment.indexOf('-'));
  return undefined;
}

/**
 * The HLS grant: 1. the signature; 2. a live video with a ladder; 3. the renditions the grant covers,
 * with `recheck` those the access decision allows now (at most 15 s old: a grant handed out before an
 * erasure or the end of a subscription stops at the playlists); 4. the rendition the path names among
 * them (one above the grant is refused like a forged link: the URL was not signed for it).
 */
export function hlsGrant(ctx: AppContext, opts: { recheck?: boolean } = {}): Credential<HlsAccess, typeof hlsQuery> {
  return {
    who: 'No token: the signed, expiring grant (`u`, `e`, `m`, `s`) of the `hlsUrl`/`previewsUrl` from GET /videos/{id}/stream authorizes it.',
    query: hlsQuery,
    required: ['u', 'e', 'm', 's'],
    async verify(c, { param, query }) {
      const videoId = String(param.id);
      const check = verifyHlsGrant(ctx, videoId, query);
      if (!check.ok) throw refused(check.reason);
      const { grant } = check;
      // The grant's viewer: a delivered custom video exists for its requester (and admins) only.
      const row = await findVideo(ctx.db, videoId, { viewerId: grant.userId });
      const ladder = row ? hlsLadderOf(row) : null;
      if (!row || !ladder) throw new HttpError('video.not_found', 'Video not found');
      let allowed = entitledRenditions(ladder.renditions, grant.maxHeight);
      if (opts.recheck) {
        const { maxHeight } = await recheckAccess(ctx, videoId, grant.userId, geoCheckFor(c, ctx).blocked);
        if (maxHeight < grant.maxHeight) allowed = entitledRenditions(ladder.renditions, maxHeight);
        // A viewer the decision now refuses keeps no rendition: the captions stop with the video.
        if (typeof param.language === 'string' && allowed.length === 0) throw linkInvalid();
      }
      const name = renditionOf(param);
      if (name !== undefined && !allowed.some((r) => r.name === name)) throw linkInvalid();
      const signed = new URLSearchParams({ u: grant.userId, e: String(grant.expires), m: String(grant.maxHeight), s: query.s ?? '' });
      return { videoId, row, grant, ladder, allowed, query: signed.toString() };
    },
  };
}

const keyQuery = z.object({
  u: field('The member the grant was signed for'),
  e: field('Expiry (Unix seconds)'),
  t: field('Key token'),
  w: field('The key window (absent: the video key of a ladder made before windows)'),
});

/** The key URL: 1. the short-lived token and its window; 2. the access decision as it stands now (never cached). */
export function keyToken(ctx: AppContext): Credential<{ videoId: string; window: number | undefined }, typeof keyQuery> {
  return {
    who: 'No token: the key token (`u`, `e`, `t`) the media playlist wrote into its key URI authorizes it, and the access decision allows its member now.',
    query: keyQuery,
    required: ['u', 'e', 't'],
    async verify(c, { param, query }) {
      // A key is never stored, and neither is a refusal of one.
      c.header('Cache-Control', 'no-store');
      const videoId = String(param.id);
      const check = verifyKeyToken(ctx, videoId, query);
      if (!check.ok) throw refused(check.reason);
      if (query.w !== undefined && !/^\d{1,6}$/.test(query.w)) throw linkInvalid();
      // For the token's viewer and this request's region.
      const decision = await authorizeViewing(ctx, { videoId, userId: check.grant.userId, regionBlocked: geoCheckFor(c, ctx).blocked });
      // An account that no longer exists: the link is not valid (not a sign-in prompt).
      if (!decision.ok && decision.error.status === 401) throw linkInvalid();
      valueOr(decision);
      return { videoId, window: query.w === undefined ? undefined : Number(query.w) };
    },
  };
}

const mediaQuery = z.object({
  u: field('The member the URL was signed for'),
  e: field('Expiry (Unix seconds)'),
  r: field('The file: `original` (admins) or a rendition (`720p`)'),
  s: field('HMAC-SHA256 signature'),
});

/** The stored file a media URL opens, for `sendStoredFile`. */
export interface MediaAccess {
  key: string;
  mime: string;
  /** Unix seconds: the URL's expiry (the answer's cache lifetime). */
  expires: number;
}

/**
 * The progressive media URL: 1. the signature, before any lookup; 2. the access decision as it
 * stands now (a live, published video; the viewer still allowed); 3. the signed file, if this viewer
 * may still have it (the original for an admin, a rendition within their entitlement).
 */
export function mediaUrl(
  ctx: AppContext,
  progressiveKey: (videoId: string, rendition: string) => string,
): Credential<MediaAccess, typeof mediaQuery> {
  return {
    who: 'No token: the signed, expiring query (`u`, `e`, `r`, `s`) of the `streamUrl` from GET /videos/{id}/stream authorizes it.',
    query: mediaQuery,
    required: ['u', 'e', 'r', 's'],
    async verify(c, { param, query }) {
      const videoId = String(param.id);
      const check = verifyStreamSignature(ctx, videoId, query);
      if (!check.ok) throw refused(check.reason);
      const { video, viewer, maxHeight } = await recheckAccess(ctx, videoId, check.grant.userId, geoCheckFor(c, ctx).blocked);
      const { file, expires } = check.grant;
      if (file === 'original') {
        if (viewer.role !== 'admin') throw linkInvalid();
        return { key: video.video_key, mime: video.video_mime, expires };
      }
      const rendition = hlsLadderOf(video)?.renditions.find((r) => r.name === file && r.progressive);
      if (!rendition) throw new HttpError('video.not_found', 'Video not found');
      if (rendition.height > maxHeight) throw linkInvalid();
      return { key: progressiveKey(videoId, file), mime: 'video/mp4', expires };
    },
  };
}

/**
 * A caption track's `<track>` URL (a `<track>` cannot send a bearer token): its HLS grant and the
 * access decision again; without a signature, the caller's own token and the access decision
 * (`authorize`, streaming/viewing.service.ts's refusals in the spec's order).
 */
export function captionGrant(
  ctx: AppContext,
  authorize: (c: Parameters<Credential['verify']>[0], videoId: string) => Promise<unknown>,
): Credential<true, typeof hlsQuery> {
  return {
    who: 'A `<track>` element: the signed grant (`u`, `e`, `m`, `s`) of `captions[].url` from GET /videos/{id}/stream; or the bearer token of a member the access decision allows.',
    query: hlsQuery,
    bearer: true,
    async verify(c, { param, query }) {
      const videoId = String(param.id);
      if (query.s === undefined) {
        await authorize(c, videoId);
        return true as const;
      }
      const check = verifyHlsGrant(ctx, videoId, query);
      if (!check.ok) throw refused(check.reason);
      await recheckAccess(ctx, videoId, check.grant.userId, geoCheckFor(c, ctx).blocked);
      return true as const;
    },
  };
}
