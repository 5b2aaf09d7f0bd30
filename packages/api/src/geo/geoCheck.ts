/**
 * The region check: is this IP's country or country-region (e.g. "US" or "US-UT") blocked, or does
 * it require extra age verification? Private and loopback addresses are never blocked (no region).
 */
import type { geoCheckSchema } from '@members/ui/api/schemas';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';
import { clientIp, lookupIp } from './lookup.js';

/** The shared `geoCheckSchema`. */
export type GeoCheckResult = z.infer<typeof geoCheckSchema>;

const matches = (list: string[], country: string, region: string) =>
  list.some((entry) => {
    const e = entry.trim().toUpperCase();
    return e === country || (region !== '' && e === `${country}-${region}`);
  });

/** Pure: the check for one location against the site's lists. */
export function checkLocation(loc: { country: string; region: string } | null, geo: SiteConfig['geo']): GeoCheckResult {
  if (!loc) return { blocked: false, requiresVerification: false, country: null, region: null };
  const country = loc.country.toUpperCase();
  const region = (loc.region ?? '').toUpperCase();
  return {
    blocked: matches(geo.blockedRegions, country, region),
    requiresVerification: matches(geo.verificationRegions, country, region),
    country,
    region: region || null,
  };
}

/** The check for the caller of this request (X-Forwarded-For only behind a trusted proxy). */
export function geoCheckFor(c: Context, ctx: { env: Pick<Env, 'TRUST_PROXY'>; site: Pick<SiteConfig, 'geo'> }): GeoCheckResult {
  return checkLocation(lookupIp(clientIp(c, ctx.env)), ctx.site.geo ?? { blockedRegions: [], verificationRegions: [] });
}
