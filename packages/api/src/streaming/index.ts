/**
 * The streaming module: signed stream URLs under the shared access decision, the byte-range media
 * route, the signed HLS stream (playlists, segments, key, seek previews), view counting (its
 * `ViewRecorded` events feed the catalog's `view_count`) and watch time (`WatchTimeRecorded`, the
 * seconds players report); `streaming_video_daily` projects both for the admin's per-video figures.
 */
import type { AppModule } from '../kernel/module.js';
import { adminVideoAnalyticsRoutes } from './admin.routes.js';
import { hlsRoutes } from './hls.routes.js';
import { mediaRoutes } from './media.route.js';
import { streamRoutes } from './stream.routes.js';
import { videoAnalyticsProjection } from './videoAnalytics.projection.js';

// Live shows (live/) sign and serve their HLS as the video on demand does.
export { signHlsGrant, signKeyToken, verifyHlsGrant, verifyKeyToken } from './hlsSignature.js';
export { STREAM_LINK_EXPIRED, STREAM_LINK_INVALID } from './linkMessages.js';
export { SHARED_CACHE, sendStoredFile } from './sendMedia.js';
export { watermarkFor } from './stream.routes.js';
export { authorizeViewing, checkVideoAccess, recordView } from './viewing.service.js';

export const streamingModule: AppModule = {
  name: 'streaming',
  projections: [videoAnalyticsProjection],
  routes(api, ctx) {
    streamRoutes(api, ctx);
    mediaRoutes(api, ctx);
    hlsRoutes(api, ctx);
    adminVideoAnalyticsRoutes(api, ctx);
  },
};
