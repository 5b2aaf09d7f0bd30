/**
 * The refresh-token cookie (httpOnly, SameSite=Strict, only sent to /api/auth) and the CSRF cookie
 * (readable by the page, which echoes it in `X-CSRF-Token`). Cookie-authenticated calls — refresh
 * and logout — must carry that header with the cookie's value (double submit); bearer-only calls
 * need nothing more.
 */

import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { HttpError } from '../http/envelope.js';
import { publicUrl } from '../http/linkOrigin.js';
import type { AppContext } from '../kernel/context.js';
import { type IssuedToken, USER_AGENT_MAX } from './sessions.js';
import { safeEqual } from './tokens.js';

export const REFRESH_COOKIE = 'refresh_token';
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'X-CSRF-Token';
const REFRESH_PATH = '/api/auth';

/** `Secure` when the configured PUBLIC_URL is https (never decided by the request). */
function secure(ctx: AppContext): boolean {
  return publicUrl(ctx.env).startsWith('https:');
}

export function setSessionCookies(ctx: AppContext, c: Context, issued: IssuedToken): void {
  const maxAge = Math.max(1, Math.floor((issued.expiresAt.getTime() - ctx.clock.now().getTime()) / 1000));
  const common = { sameSite: 'Strict', secure: secure(ctx), maxAge } as const;
  setCookie(c, REFRESH_COOKIE, issued.token, { ...common, httpOnly: true, path: REFRESH_PATH });
  setCookie(c, CSRF_COOKIE, randomBytes(24).toString('base64url'), { ...common, httpOnly: false, path: '/' });
}

export function clearSessionCookies(c: Context): void {
  deleteCookie(c, REFRESH_COOKIE, { path: REFRESH_PATH });
  deleteCookie(c, CSRF_COOKIE, { path: '/' });
}

export function refreshCookie(c: Context): string | undefined {
  return getCookie(c, REFRESH_COOKIE) || undefined;
}

/** A cookie-authenticated call must echo the CSRF cookie in the header. */
export function requireCsrf(c: Context): void {
  const cookie = getCookie(c, CSRF_COOKIE);
  const header = c.req.header(CSRF_HEADER);
  if (!cookie || !header || !safeEqual(cookie, header)) throw new HttpError('request.csrf', 'Missing or invalid CSRF token');
}

/** The device a login comes from, as its session records it (the browser's user agent, trimmed). */
export function deviceOf(c: Context): { userAgent: string | null } {
  const ua = c.req.header('user-agent')?.trim();
  return { userAgent: ua ? ua.slice(0, USER_AGENT_MAX) : null };
}
