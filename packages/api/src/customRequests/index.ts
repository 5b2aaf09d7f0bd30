/**
 * The custom video requests module (issue 30, annual plan): a member asks for a video, an admin
 * quotes or declines, the member pays through billing (a fresh address, verified by an admin), the
 * admin delivers a catalog video only the requester can see. Stream `custom-request-{id}`
 * (customRequest.decider.ts), read model `custom_requests` (customRequest.projection.ts), routes
 * (routes.ts). The catalog keeps the delivered video's visibility (`videos.private_to`) from
 * `CustomRequestDelivered`. docs/chat.md describes it.
 */
import type { AppModule } from '../kernel/module.js';
import { customRequestsProjection } from './customRequest.projection.js';
import { registerWithBilling } from './customRequests.service.js';
import { exportCustomRequestData } from './personalData.js';
import { customRequestRoutes } from './routes.js';

registerWithBilling();

export const customRequestsModule: AppModule = {
  name: 'customRequests',
  projections: [customRequestsProjection],
  routes: customRequestRoutes,
  exportPersonalData: exportCustomRequestData,
};
