/**
 * The media store (local directory or S3-compatible bucket: originals, renditions, thumbnails), the
 * ffmpeg and ffprobe helpers, and copying a site's media between stores (copy/). The app context
 * holds the site's store as `ctx.media`.
 */

export { type CopyProgress, copyMedia } from './copy/copyMedia.js';
export { extractThumbnail, mediaBinaries, probeVideo } from './ffmpeg.js';
export { imageTypeOfFile } from './imageType.js';
export { openMediaStore } from './mediaStore.js';
export { explainS3Error, parseMediaStore, s3ClientConfig } from './s3Config.js';
export {
  contentTypeOf,
  isValidKey,
  MEDIA_STORE_UNAVAILABLE,
  type MediaStorage,
  MediaStoreError,
  MissingLadderFile,
  sweepStaging,
  sweepTranscodeScratch,
  type UploadedObject,
} from './storage.js';
export { UPLOADED_VIDEO_INPUT } from './uploadedVideoInput.js';
