/**
 * JSON only, same origin only. A cross-site HTML form or `fetch` in `no-cors` mode can send a
 * state-changing request without a CORS preflight only with a "simple" content type (`text/plain`,
 * `application/x-www-form-urlencoded`, `multipart/form-data`): answering 415 to anything but
 * `application/json` takes that away, and a state-changing request whose `Origin` is not
 * PUBLIC_URL's (or whose `Sec-Fetch-Site` says `cross-site`) is refused with 403 before it runs —
 * login and reset-password included (login CSRF would sign the victim into the attacker's account).
 *
 * A request without `Origin` (curl, server-to-server, the desktop app's main process) passes: a
 * browser always sends `Origin` on POST, PUT, PATCH and DELETE. Routes that take other bodies
 * (the multipart video upload, tus) are named by the caller and keep the origin check.
 * Anchor: OWASP CSRF Prevention Cheat Sheet, "Verifying Origin With Standard Headers" and
 * "Fetch Metadata".
 */
import type { MiddlewareHandler } from 'hono';
import type { Env } from '../config/env.js';
import { refuse } from './envelope.js';
import { CROSS_SITE_REFUSED, isSiteOrigin, publicOrigin } from './linkOrigin.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// In linkOrigin.ts (public to the areas: the chat socket checks its handshake's Origin the same way).
export { CROSS_SITE_REFUSED, isSiteOrigin };
export const JSON_ONLY = 'Request body must be JSON (Content-Type: application/json)';

/** `application/json`, with or without parameters (`; charset=utf-8`). */
const isJson = (type: string) => /^application\/json\s*(;|$)/i.test(type.trim());

export function sameOriginJson(env: Pick<Env, 'PUBLIC_URL' | 'PORT'>, opts: { otherBodies: RegExp }): MiddlewareHandler {
  return async function sameOriginJsonOnly(c, next) {
    if (!STATE_CHANGING.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (c.req.header('sec-fetch-site') === 'cross-site' || (origin !== undefined && !isSiteOrigin(origin, publicOrigin(env))))
      return refuse(c, 'request.cross_site', CROSS_SITE_REFUSED);
    if (opts.otherBodies.test(c.req.path)) return next();
    const type = c.req.header('content-type');
    const length = c.req.header('content-length');
    const hasBody = (length !== undefined && length.trim() !== '0') || c.req.header('transfer-encoding') !== undefined;
    if ((type !== undefined || hasBody) && !isJson(type ?? '')) return refuse(c, 'request.json_only', JSON_ONLY);
    return next();
  };
}
