/** The geo module: GET /api/geo/check for the browser; `geoCheckFor` for server-side enforcement. */

import { geoCheckSchema } from '@members/ui/api/schemas';
import { ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { AppModule } from '../kernel/module.js';
import { geoCheckFor } from './geoCheck.js';

export { checkLocation, type GeoCheckResult, geoCheckFor } from './geoCheck.js';
export { clientIp, lookupIp } from './lookup.js';

export const geoModule: AppModule = {
  name: 'geo',
  routes(api, ctx) {
    const geoCheckDoc = describe({
      summary: "The caller's region: blocked, or needing extra age verification",
      description: 'From the client address (`X-Forwarded-For` only with `TRUST_PROXY`); private addresses are never blocked.',
      tags: ['site'],
      access: 'public',
      ok: { 200: geoCheckSchema },
    });

    api.get('/geo/check', geoCheckDoc, function geoCheck(c) {
      c.header('Cache-Control', 'private, no-store');
      return ok(c, geoCheckFor(c, ctx));
    });
  },
};
