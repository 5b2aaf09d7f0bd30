/**
 * The catalog module: video uploads (multipart route and `ingestVideoFile` for the tus
 * uploads module), the catalog projection, the public catalog and the admin's edits.
 */
import type { AppModule } from '../module.js';
import { mountAdminCatalogRoutes } from './admin.routes.js';
import { catalogProjection } from './catalog.projection.js';
import { mountCatalogRoutes } from './catalog.routes.js';
import { mountUploadRoute } from './upload.route.js';

export { findVideo, toVideoEntity, type VideoEntity } from './catalog.queries.js';
export { type IngestInput, type IngestResult, ingestVideoFile } from './ingest.js';
export { deleteVideo, editVideo, getAnyVideo } from './videos.service.js';

export const catalogModule: AppModule = {
  name: 'catalog',
  projections: [catalogProjection],
  routes(api, ctx) {
    mountUploadRoute(api, ctx);
    mountAdminCatalogRoutes(api, ctx);
    mountCatalogRoutes(api, ctx);
  },
};
