/**
 * Every domain area of the API, in the order their projections run and their routes mount. Only the
 * composition roots (main.ts, the CLI, the test harness) import this list; they hand it to
 * `startServer`/`createApp` and the projections to `createContext`.
 */
import { adminModule } from '../admin/index.js';
import { apiDocsModule } from '../apiDocs/index.js';
import { auditModule } from '../audit/index.js';
import { billingModule } from '../billing/index.js';
import { catalogModule } from '../catalog/index.js';
import { chatModule } from '../chat/index.js';
import { customRequestsModule } from '../customRequests/index.js';
import type { Projection } from '../eventstore/projections.js';
import { forensicsModule } from '../forensics/index.js';
import { geoModule } from '../geo/index.js';
import { identityModule } from '../identity/index.js';
import type { AppModule } from '../kernel/module.js';
import { liveModule } from '../live/index.js';
import { mailModule } from '../mail/index.js';
import { privacyModule } from '../privacy/index.js';
import { siteModule } from '../site/index.js';
import { streamingModule } from '../streaming/index.js';
import { transcodeModule } from '../transcode/index.js';
import { uploadsModule } from '../uploads/index.js';

export const modules: AppModule[] = [
  siteModule,
  identityModule,
  // Its export and erasure run every module's part (exportPersonalData, erasePersonalData).
  privacyModule(() => modules),
  billingModule,
  catalogModule,
  streamingModule,
  transcodeModule,
  uploadsModule,
  geoModule,
  adminModule,
  auditModule,
  mailModule,
  chatModule,
  customRequestsModule,
  forensicsModule,
  liveModule,
  // Last: its document lists every route mounted before it.
  apiDocsModule,
];

/** Every module's read-model projections, for the composition roots that build a context without a server (the CLI). */
export function allProjections(): Projection[] {
  return modules.flatMap((m) => m.projections ?? []);
}
