/**
 * Signed thumbnail URLs for a custom request's delivered video (`private_to`): the image is its
 * requester's alone, and an `<img>` sends no bearer token, so the catalog hands the requester (and
 * an admin) a path that carries a grant: HMAC-SHA256 over (video id, user id, expiry) with a key
 * derived from TOKEN_SECRET for this purpose only. Expiry is rounded up to the next 6-hour mark so
 * one page of cards keeps one URL (browser cache) and a copied link dies within 12 hours. Public
 * videos keep their plain, cacheable path.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';

type SigningContext = Pick<AppContext, 'env' | 'clock'>;

const STEP_SECONDS = 6 * 3600;

function grantSignature(ctx: SigningContext, videoId: string, userId: string, expires: number): string {
  const key = createHmac('sha256', tokenSecret(ctx as AppContext))
    .update('members/thumbnail-url/v1')
    .digest();
  return createHmac('sha256', key).update(`${videoId}\n${userId}\n${expires}`).digest('base64url');
}

/** `/api/videos/{id}/thumbnail?u=…&e=…&s=…`, valid 6 to 12 hours. */
export function signThumbnailPath(ctx: SigningContext, videoId: string, userId: string): string {
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const expires = (Math.floor(now / STEP_SECONDS) + 2) * STEP_SECONDS;
  const qs = new URLSearchParams({ u: userId, e: String(expires), s: grantSignature(ctx, videoId, userId, expires) });
  return `/api/videos/${encodeURIComponent(videoId)}/thumbnail?${qs}`;
}

/** The user a presented grant speaks for, or undefined (absent, tampered, foreign or expired). */
export function thumbnailGrantUser(
  ctx: SigningContext,
  videoId: string,
  q: { u?: string | undefined; e?: string | undefined; s?: string | undefined },
): string | undefined {
  if (!q.u || !q.e || !q.s || !/^\d{1,12}$/.test(q.e) || !/^[A-Za-z0-9_-]{43}$/.test(q.s)) return undefined;
  const expected = Buffer.from(grantSignature(ctx, videoId, q.u, Number(q.e)));
  const given = Buffer.from(q.s);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  if (Number(q.e) * 1000 <= ctx.clock.now().getTime()) return undefined;
  return q.u;
}
