/**
 * Security headers on every answer (API, web app, static files, errors), through Hono's
 * `secure-headers` middleware, configured:
 *
 * - `Content-Security-Policy` for the web app: scripts only from our own origin (the Vite build
 *   has no inline script), no inline style either (React's `style={{…}}` props are set through
 *   the CSSOM, which `style-src` does not govern), images from us plus `data:` (the QR codes are
 *   `data:` PNGs; the favicon is a `data:` SVG), media from us plus `blob:` (a MediaSource player
 *   such as hls.js plays from blob URLs and runs its worker from one), no plugins, no `<base>`,
 *   forms posting to us only, and never framed (`frame-ancestors 'none'`, and the older
 *   `X-Frame-Options: DENY` for browsers without it: clickjacking of Approve/Verify).
 * - `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin` (no referrer leaves the
 *   site; same-origin requests keep theirs, and their `Origin` header), `Cross-Origin-Opener-Policy`
 *   and `Cross-Origin-Resource-Policy: same-origin`, a `Permissions-Policy` denying the powerful
 *   features the site never uses.
 * - `Strict-Transport-Security` only when `PUBLIC_URL` is https (sent over plain http it would be
 *   meaningless, and on a development machine harmful).
 *
 * Headers a route sets itself win (`overwrite: false`): the media route's stricter
 * `Referrer-Policy: no-referrer` (a signed stream URL must not travel on), or a page that needs
 * another policy. deploy/nginx.conf sends the same values on the media it serves itself
 * (`deployConfig.unit.test.ts` keeps them equal to `SECURITY_HEADERS` and `MEDIA_REFERRER_POLICY`).
 */
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { Env } from '../config/env.js';

export const CONTENT_SECURITY_POLICY: Readonly<Record<string, readonly string[]>> = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  mediaSrc: ["'self'", 'blob:'],
  workerSrc: ["'self'", 'blob:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The fixed headers, by name (what the middleware and nginx's own answers send). */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/** What the media route (and nginx's media locations) send instead of `same-origin`. */
export const MEDIA_REFERRER_POLICY = 'no-referrer';

export const HSTS = 'max-age=31536000';

export function securityHeaders(env: Pick<Env, 'PUBLIC_URL'>): MiddlewareHandler {
  const https = env.PUBLIC_URL?.startsWith('https:') ?? false;
  return secureHeaders({
    contentSecurityPolicy: Object.fromEntries([
      ...Object.entries(CONTENT_SECURITY_POLICY).map(([k, v]) => [k, [...v]]),
      ...(https ? [['upgradeInsecureRequests', []]] : []),
    ]),
    xContentTypeOptions: SECURITY_HEADERS['X-Content-Type-Options'],
    xFrameOptions: SECURITY_HEADERS['X-Frame-Options'],
    referrerPolicy: SECURITY_HEADERS['Referrer-Policy'],
    crossOriginOpenerPolicy: SECURITY_HEADERS['Cross-Origin-Opener-Policy'],
    crossOriginResourcePolicy: SECURITY_HEADERS['Cross-Origin-Resource-Policy'],
    strictTransportSecurity: https ? HSTS : false,
    permissionsPolicy: { camera: [], microphone: [], geolocation: [], payment: [], usb: [] },
    overwrite: false,
  });
}
