/**
 * IP → country/region from geoip-lite's bundled database (no download at run time). The client IP
 * honours X-Forwarded-For only when TRUST_PROXY is set; private and loopback addresses have no region.
 *
 * The database is loaded at the first public address, not at import: geoip-lite reads its files
 * synchronously when required (about 0.4 s of CPU and 110 MB of memory). A process that never sees a
 * public address (a CLI command, a transcode runner, a server only reached from loopback) never pays
 * for it; a server behind nginx pays once, at its first member's request.
 */

import { createRequire } from 'node:module';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { Env } from '../config/env.js';

export interface GeoLocation {
  country: string;
  region: string;
}

const PRIVATE = [
  /^10\./,
  /^127\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^169\.254\./,
  /^::1$/,
  /^f[cd][0-9a-f]{2}:/i,
  /^fe80:/i,
  /^0\./,
];

export function isPrivateIp(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return PRIVATE.some((re) => re.test(v4));
}

type GeoipLite = typeof import('geoip-lite');
let geoip: GeoipLite | undefined;

/** geoip-lite, required (and its database read) the first time it is needed. */
function database(): GeoipLite {
  geoip ??= createRequire(import.meta.url)('geoip-lite') as GeoipLite;
  return geoip;
}

export function lookupIp(ip: string | undefined): GeoLocation | null {
  if (!ip || isPrivateIp(ip)) return null;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  const hit = database().lookup(v4);
  if (!hit) return null;
  return { country: hit.country, region: hit.region };
}

/** The caller's IP: the left-most X-Forwarded-For entry behind a trusted proxy, else the socket peer. */
export function clientIp(c: Context, env: Pick<Env, 'TRUST_PROXY'>): string | undefined {
  if (env.TRUST_PROXY) {
    const xff = c.req.header('x-forwarded-for');
    const first = xff?.split(',')[0]?.trim();
    if (first) return first;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
