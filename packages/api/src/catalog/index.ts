/**
 * The catalog module: `ingestVideoFile` (what every upload protocol of uploads/ ends in), the
 * catalog projection, the public catalog, the admin's edits and (leader only) the release job that
 * publishes scheduled videos on time.
 */

import type { AppModule } from '../kernel/module.js';
import { sweepStaging } from '../media/index.js';
import { adminCatalogRoutes } from './admin.routes.js';
import { catalogProjection } from './catalog.projection.js';
import { catalogRoutes } from './catalog.routes.js';
import { importsProjection } from './imports.projection.js';
import { startReleaseJob } from './releases.job.js';

export { addCaptionTrack, captionOf, captionsOf } from './captions.service.js';
export type { CaptionRow, HlsLadder, VideoRow } from './catalog.projection.js';
export {
  allVideoIds,
  findVideo,
  hlsLadderOf,
  mayPreviewUnreleased,
  previewRefused,
  toVideoEntity,
  transcodedVideoIds,
  type VideoEntity,
  viewCountOf,
} from './catalog.queries.js';
export { videoParams } from './catalog.routes.js';
export { findImport } from './imports.projection.js';
export { type IngestInput, type IngestResult, ingestVideoFile, validateDetails } from './ingest.js';
export { type PreviewInfo, type RenditionInfo, type TranscodeResultEvent, type TranscodeStatus, transcodeStatusAfter } from './ladder.js';
export { type Audience, audienceOf, audienceOfStanding, availableAtOf, dueReleases } from './releases.js';
export { ACCESS_LEVELS, type AccessLevel, EXCLUSIVE_TO, type ExclusiveTo } from './video.decider.js';
export { LIMITS, parsePublishAt, UPLOAD_REQUIRED_MESSAGE } from './videoInput.js';
export { deleteVideo, editVideo, getAnyVideo } from './videos.service.js';

export const catalogModule: AppModule = {
  name: 'catalog',
  projections: [catalogProjection, importsProjection],
  async start(ctx) {
    // Uploads a killed process was receiving, and videos it was moving in without recording them.
    const isRecorded = async (id: string) => Boolean(await ctx.db.get('SELECT 1 AS one FROM videos WHERE id = ?', [id]));
    // A wrong bucket or refused credentials stop the start here, with the variable to fix.
    const storage = ctx.media;
    await storage.check();
    const removed = await sweepStaging(storage, ctx.env.DATA_DIR, isRecorded);
    if (removed) ctx.logger.info({ removed }, 'staged uploads left by a stopped process removed');
    return undefined;
  },
  routes(api, ctx) {
    adminCatalogRoutes(api, ctx);
    catalogRoutes(api, ctx);
  },
  background(ctx) {
    return startReleaseJob(ctx, ctx.env.RELEASES_TICK_MS);
  },
};
