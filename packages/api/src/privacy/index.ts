/**
 * The privacy module: a member's data rights. Data export (export.service.ts: everything stored
 * about them, as JSON or a page) and erasure by crypto-shredding (erasure.service.ts: "delete my
 * account", and an admin's erasure on a verified request), at privacy.routes.ts. It owns no personal
 * data itself: each module exports and erases its own (`AppModule.exportPersonalData`,
 * `erasePersonalData`), and privacy runs them for the module list it is given. It gives one section
 * itself, the views (views.ts), until streaming/ takes them over.
 * The crypto-shredding codec itself (per-member data keys, sealing personal event fields, the
 * shredder the event store reads through, waiting for personal writes) is not here: it is
 * infrastructure at the top level, shredding/, used by the event store and every area that writes
 * personal data, and it imports no area.
 */
import type { AppModule } from '../kernel/module.js';
import type { PersonalDataParts } from './export.service.js';
import { privacyRoutes } from './privacy.routes.js';
import { exportViews } from './views.js';

export { eraseMember, reapplyErasures } from './erasure.service.js';
export type { PersonalDataParts } from './export.service.js';

/** `parts()` is the app's module list (modules.ts), read when the routes mount: the list holds this module too. */
export function privacyModule(parts: () => PersonalDataParts): AppModule {
  return {
    name: 'privacy',
    // The views (streaming's streams, read from the log): views.ts.
    exportPersonalData: exportViews,
    routes(api, ctx) {
      privacyRoutes(api, ctx, parts());
    },
  };
}
