import type { Env } from '../config/env.js';

/**
 * The site's address, from configuration alone: PUBLIC_URL (required when NODE_ENV=production,
 * `http://localhost:PORT` as the dev default, config/devDefaults.ts), never the request's Host or
 * X-Forwarded-Host, which a client chooses (a reset link to the attacker's host hands them the token).
 * A server built without main.ts (the tests) and without PUBLIC_URL gets the same dev default.
 */
export function publicUrl(env: Pick<Env, 'PUBLIC_URL' | 'PORT'>): string {
  return (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
}

/** The origin (scheme, host, port) of `publicUrl`: what a same-origin browser request sends as `Origin`. */
export function publicOrigin(env: Pick<Env, 'PUBLIC_URL' | 'PORT'>): string {
  return new URL(publicUrl(env)).origin;
}

/** Where mailed links point: `publicUrl`. */
export function linkOrigin(ctx: { env: Pick<Env, 'PUBLIC_URL' | 'PORT'> }): string {
  return publicUrl(ctx.env);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const CROSS_SITE_REFUSED = 'Cross-site requests are not accepted';

/**
 * Whether `origin` (an `Origin` header) is the site's. `localhost`, `127.0.0.1` and `[::1]` are one
 * machine: on the same scheme and port they count as the same origin (a dev site opened by IP).
 */
export function isSiteOrigin(origin: string, site: string): boolean {
  if (origin === site) return true;
  let o: URL;
  let s: URL;
  try {
    o = new URL(origin);
    s = new URL(site);
  } catch {
    return false; // `null` (a sandboxed frame, a file://), or garbage
  }
  if (o.origin === s.origin) return true;
  return o.protocol === s.protocol && o.port === s.port && LOOPBACK.has(o.hostname) && LOOPBACK.has(s.hostname);
}
