/**
 * Signed HLS URLs. One grant per viewer and video covers the master playlist, the media playlists,
 * the segments and the seek previews of the renditions up to `maxHeight` (the viewer's entitlement
 * when the stream was opened): HMAC-SHA256 over (video, user, expiry, max height) with a key of its
 * own derived from TOKEN_SECRET, so neither a progressive stream signature nor a session token can
 * pass for one. The AES key URLs carry a token of their own that expires with the grant: the media
 * playlist is fetched once and names a key per window of segments (transcode/videoKeys.ts), which the
 * player fetches as it plays; what stops them is the access decision the key route makes on each.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';

export interface HlsGrant {
  videoId: string;
  userId: string;
  /** Unix seconds. */
  expires: number;
  /** Tallest rendition (picture height) the grant covers. */
  maxHeight: number;
}

type SigningContext = Pick<AppContext, 'env' | 'clock'>;

const purposeKey = (ctx: SigningContext, purpose: string) =>
  createHmac('sha256', tokenSecret(ctx as AppContext))
    .update(purpose)
    .digest();

const mac = (ctx: SigningContext, purpose: string, fields: (string | number)[]) =>
  createHmac('sha256', purposeKey(ctx, purpose)).update(fields.join('\n')).digest('base64url');

const nowSeconds = (ctx: SigningContext) => Math.floor(ctx.clock.now().getTime() / 1000);

function sameMac(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The query string (`u`, `e`, `m`, `s`) every URL under `/api/hls/{id}/` carries for this grant. */
export function signHlsGrant(
  ctx: SigningContext,
  videoId: string,
  userId: string,
  maxHeight: number,
): { query: string; expiresAt: string } {
  const expires = nowSeconds(ctx) + ctx.env.STREAM_URL_TTL_SECONDS;
  const s = mac(ctx, 'members/hls/v1', [videoId, userId, expires, maxHeight]);
  return {
    query: new URLSearchParams({ u: userId, e: String(expires), m: String(maxHeight), s }).toString(),
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

export type HlsCheck<G> = { ok: true; grant: G } | { ok: false; reason: 'invalid' | 'expired' };

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

export function verifyHlsGrant(
  ctx: SigningContext,
  videoId: string,
  q: { u?: string | undefined; e?: string | undefined; m?: string | undefined; s?: string | undefined },
): HlsCheck<HlsGrant> {
  if (!q.u || !ID.test(q.u) || !q.e || !/^\d{1,12}$/.test(q.e) || !q.m || !/^\d{1,5}$/.test(q.m) || !q.s || !MAC.test(q.s))
    return { ok: false, reason: 'invalid' };
  const grant = { videoId, userId: q.u, expires: Number(q.e), maxHeight: Number(q.m) };
  if (!sameMac(mac(ctx, 'members/hls/v1', [videoId, grant.userId, grant.expires, grant.maxHeight]), q.s))
    return { ok: false, reason: 'invalid' };
  if (grant.expires <= nowSeconds(ctx)) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}

export interface KeyGrant {
  videoId: string;
  userId: string;
  expires: number;
}

/** The key URL's query (`u`, `e`, `t`): valid until `expires` (Unix seconds; the playlist's grant's). */
export function signKeyToken(ctx: SigningContext, videoId: string, userId: string, expires: number): string {
  const t = mac(ctx, 'members/hls-key/v1', [videoId, userId, expires]);
  return new URLSearchParams({ u: userId, e: String(expires), t }).toString();
}

export function verifyKeyToken(
  ctx: SigningContext,
  videoId: string,
  q: { u?: string | undefined; e?: string | undefined; t?: string | undefined },
): HlsCheck<KeyGrant> {
  if (!q.u || !ID.test(q.u) || !q.e || !/^\d{1,12}$/.test(q.e) || !q.t || !MAC.test(q.t)) return { ok: false, reason: 'invalid' };
  const grant = { videoId, userId: q.u, expires: Number(q.e) };
  if (!sameMac(mac(ctx, 'members/hls-key/v1', [videoId, grant.userId, grant.expires]), q.t)) return { ok: false, reason: 'invalid' };
  if (grant.expires <= nowSeconds(ctx)) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
