/**
 * The streaming module: signed stream URLs under the shared access decision, the byte-range media
 * route, the signed HLS stream (playlists, segments, key, seek previews), and view counting (its `ViewRecorded` events feed the catalog's `view_count`).
 */
import type { AppModule } from '../kernel/module.js';
import { hlsRoutes } from './hls.routes.js';
import { mediaRoutes } from './media.route.js';
import { streamRoutes } from './stream.routes.js';

export { authorizeViewing, checkVideoAccess, recordView } from './viewing.service.js';

export const streamingModule: AppModule = {
  name: 'streaming',
  routes(api, ctx) {
    streamRoutes(api, ctx);
    mediaRoutes(api, ctx);
    hlsRoutes(api, ctx);
  },
};
