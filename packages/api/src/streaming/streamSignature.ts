/**
 * Signed, expiring media URLs: HMAC-SHA256 over (video id, user id, expiry) with a key derived from
 * TOKEN_SECRET for this purpose only, so a stream signature can never pass as a session token
 * (or the reverse). Time comes from the injected clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { tokenSecret } from '../http/auth.js';

export interface StreamGrant {
  videoId: string;
  userId: string;
  /** Unix seconds. */
  expires: number;
}

type SigningContext = Pick<AppContext, 'env' | 'clock'>;

function streamKey(ctx: SigningContext): Buffer {
  return createHmac('sha256', tokenSecret(ctx as AppContext))
    .update('members/stream-url/v1')
    .digest();
}

export function streamSignature(ctx: SigningContext, grant: StreamGrant): string {
  return createHmac('sha256', streamKey(ctx)).update(`${grant.videoId}\n${grant.userId}\n${grant.expires}`).digest('base64url');
}

/**
 * The media path (relative to the site) for this grant, valid for STREAM_URL_TTL_SECONDS.
 * @example signStreamPath(ctx, videoId, user.id) → '/api/media/videos/{id}?u=…&e=…&s=…'
 */
export function signStreamPath(ctx: SigningContext, videoId: string, userId: string): { path: string; expiresAt: string } {
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + ctx.env.STREAM_URL_TTL_SECONDS;
  const s = streamSignature(ctx, { videoId, userId, expires });
  const qs = new URLSearchParams({ u: userId, e: String(expires), s });
  return { path: `/api/media/videos/${encodeURIComponent(videoId)}?${qs}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export type SignatureCheck = { ok: true; grant: StreamGrant } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks a presented signature: wrong video, user or expiry (tampered) → invalid; past expiry → expired. */
export function verifyStreamSignature(
  ctx: SigningContext,
  videoId: string,
  q: { u?: string | undefined; e?: string | undefined; s?: string | undefined },
): SignatureCheck {
  if (!q.u || !q.e || !q.s || !/^\d{1,12}$/.test(q.e) || !/^[A-Za-z0-9_-]{43}$/.test(q.s)) return { ok: false, reason: 'invalid' };
  const grant = { videoId, userId: q.u, expires: Number(q.e) };
  const expected = Buffer.from(streamSignature(ctx, grant));
  const given = Buffer.from(q.s);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
  if (grant.expires * 1000 <= ctx.clock.now().getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
