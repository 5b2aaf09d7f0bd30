/**
 * The media store (local directory or S3-compatible bucket: originals, renditions, thumbnails), the
 * ffmpeg and ffprobe helpers, and copying a site's media between stores (copy/).
 */

export { type CopyProgress, copyMedia } from './copy/copyMedia.js';
export type { CopyEndpoint } from './copy/endpoint.js';
export { localEndpoint } from './copy/localEndpoint.js';
export { s3Endpoint } from './copy/s3Endpoint.js';
export { extractThumbnail, mediaBinaries, probeVideo } from './ffmpeg.js';
export { imageTypeOfFile } from './imageType.js';
export { mediaStorageFor } from './mediaStore.js';
export { explainS3Error, parseMediaStore, s3ClientConfig } from './s3Store.js';
export {
  type BucketObject,
  contentTypeOf,
  isValidKey,
  MEDIA_STORE_UNAVAILABLE,
  type MediaStorage,
  MediaStoreError,
  sweepStaging,
  sweepTranscodeScratch,
} from './storage.js';
export { UPLOADED_VIDEO_INPUT } from './uploadedVideoInput.js';
