/**
 * Signed, expiring progressive media URLs: HMAC-SHA256 over (video id, user id, expiry, file) with a
 * key derived from TOKEN_SECRET for this purpose only, so a stream signature can never pass as a
 * session token (or the reverse). The file (`r`) is what the URL opens: `original` (the upload,
 * signed for admins only) or a rendition's progressive MP4 (`720p`), so a member cannot edit the URL
 * into a taller file. Time comes from the injected clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';

/** The uploaded original, or a rendition's progressive file by its name ("720p"). */
export type StreamFile = 'original' | `${number}p`;

export interface StreamGrant {
  videoId: string;
  userId: string;
  /** Unix seconds. */
  expires: number;
  file: StreamFile;
}

type SigningContext = Pick<AppContext, 'env' | 'clock'>;

function streamKey(ctx: SigningContext): Buffer {
  return createHmac('sha256', tokenSecret(ctx as AppContext))
    .update('members/stream-url/v2')
    .digest();
}

export function streamSignature(ctx: SigningContext, grant: StreamGrant): string {
  return createHmac('sha256', streamKey(ctx))
    .update(`${grant.videoId}\n${grant.userId}\n${grant.expires}\n${grant.file}`)
    .digest('base64url');
}

/**
 * The media path (relative to the site) of one file for this viewer, valid for STREAM_URL_TTL_SECONDS.
 * @example signStreamPath(ctx, videoId, user.id, '720p') → '/api/media/videos/{id}?u=…&e=…&r=720p&s=…'
 */
export function signStreamPath(
  ctx: SigningContext,
  videoId: string,
  userId: string,
  file: StreamFile,
): { path: string; expiresAt: string } {
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + ctx.env.STREAM_URL_TTL_SECONDS;
  const s = streamSignature(ctx, { videoId, userId, expires, file });
  const qs = new URLSearchParams({ u: userId, e: String(expires), r: file, s });
  return { path: `/api/media/videos/${encodeURIComponent(videoId)}?${qs}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export type SignatureCheck = { ok: true; grant: StreamGrant } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a presented signature: wrong video, user, expiry or file (tampered) → invalid; past expiry → expired. */
export function verifyStreamSignature(
  ctx: SigningContext,
  videoId: string,
  q: { u?: string | undefined; e?: string | undefined; r?: string | undefined; s?: string | undefined },
): SignatureCheck {
  if (!q.u || !q.e || !q.r || !q.s || !/^\d{1,12}$/.test(q.e) || !/^(original|\d{3,4}p)$/.test(q.r) || !/^[A-Za-z0-9_-]{43}$/.test(q.s))
    return { ok: false, reason: 'invalid' };
  const grant = { videoId, userId: q.u, expires: Number(q.e), file: q.r as StreamFile };
  const expected = Buffer.from(streamSignature(ctx, grant));
  const given = Buffer.from(q.s);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
  if (grant.expires * 1000 <= ctx.clock.now().getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
