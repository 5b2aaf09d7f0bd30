/** The geo module: GET /api/geo/check for the browser; `geoCheckFor` for server-side enforcement. */

import { ok } from '../http/envelope.js';
import type { AppModule } from '../module.js';
import { geoCheckFor } from './geoCheck.js';

export { checkLocation, type GeoCheckResult, geoCheckFor } from './geoCheck.js';

export const geoModule: AppModule = {
  name: 'geo',
  routes(api, ctx) {
    api.get('/geo/check', function geoCheck(c) {
      c.header('Cache-Control', 'private, no-store');
      return ok(c, geoCheckFor(c, ctx));
    });
  },
};
