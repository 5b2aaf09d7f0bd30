/**
 * The streaming module: signed stream URLs under the shared access decision, the byte-range media
 * route, the signed HLS stream (playlists, segments, key, seek previews), and view counting (its `ViewRecorded` events feed the catalog's `view_count`).
 */
import type { AppModule } from '../module.js';
import { mountHlsRoutes } from './hls.routes.js';
import { mountMediaRoute } from './media.route.js';
import { mountStreamRoutes } from './stream.routes.js';

export { authorizeViewing, checkVideoAccess, recordView } from './viewing.service.js';

export const streamingModule: AppModule = {
  name: 'streaming',
  routes(api, ctx) {
    mountStreamRoutes(api, ctx);
    mountMediaRoute(api, ctx);
    mountHlsRoutes(api, ctx);
  },
};
