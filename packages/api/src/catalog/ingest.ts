/**
 * Turns a complete video file on disk into a catalog video: check the fields, check the bytes
 * (ffprobe must find a video stream; a thumbnail must really be JPEG/PNG/WebP), move the file into
 * storage, take a thumbnail (at ~10%, or where asked) when none was given, record `VideoUploaded`. Used by the
 * multipart upload route and by the tus uploads module.
 *
 * Contract on files: on success both input files have been moved into storage. On failure nothing
 * is left in storage; the caller's input files may still exist, so the caller removes them
 * (`fs.rm(path, { force: true })`). A finished tus upload (`remote`) is probed and its thumbnail
 * taken in place (a presigned URL in the bucket, the file on disk), then copied to its place
 * (server-side in a bucket, a hard link on disk); the upload itself stays, the caller removes it.
 */
import fsp from 'node:fs/promises';
import type { Queryable } from '../db/types.js';
import type { AppContext } from '../kernel/context.js';
import {
  extractThumbnail,
  imageTypeOfFile,
  MEDIA_STORE_UNAVAILABLE,
  type MediaStorage,
  MediaStoreError,
  probeVideo,
  type UploadedObject,
} from '../media/index.js';
import { eventMetadata } from '../shared/eventMetadata.js';
import { type Failure, failure } from '../shared/result.js';
import { videos } from './video.commands.js';
import type { ThumbnailInfo, VideoDetails, VideoFileInfo } from './video.decider.js';
import {
  checkText,
  LIMITS,
  parseAccessLevel,
  parseDurationText,
  parseExclusiveTo,
  parseLabels,
  parsePublishAt,
  UPLOAD_REQUIRED_MESSAGE,
} from './videoInput.js';

export interface IngestInput {
  /** The video on this process's disk, or: */
  filePath?: string;
  /** A finished tus upload's bytes, read in place (`MediaStorage.uploadedObject`; then `filePath` is not used). */
  remote?: { object: UploadedObject; size: number };
  originalName?: string;
  title: string;
  description?: string | null;
  model?: string | null;
  /** As typed by the admin (mm:ss); the probed duration wins. */
  durationText?: string | null;
  accessLevel?: string | null;
  tags?: string | string[] | null;
  categories?: string | string[] | null;
  /** 'annual' (behind-the-scenes) or empty for none. */
  exclusiveTo?: string | null;
  /** ISO 8601 date-time with an offset: the release is scheduled (a future time keeps the video hidden until then). */
  publishAt?: string | null;
  thumbnailPath?: string | null;
  /** Where to take the thumbnail when none is given (seconds; default ~10% of the video). */
  thumbnailAtSeconds?: number | null;
  actorId: string;
  requestId?: string | null;
  /** A named system actor beside the admin (the CLI import: 'cli:videos-import'), in the event's metadata. */
  actor?: string;
  /** SHA-256 of the file's bytes, recorded in the upload event's metadata (the CLI import's idempotency key). */
  contentSha256?: string;
  /** false: recorded hidden from members (VideoUnpublished in the same append); an upload is published at once. */
  published?: boolean;
}

export interface IngestOptions {
  /**
   * Runs in the transaction that records the video (`VideoUploaded`), with its id: a write that must
   * commit with the video or not at all (the tus upload's completion record). Throwing rolls the
   * video back and removes what was stored; the error is rethrown to the caller.
   */
  inTransaction?: (tx: Queryable, videoId: string) => Promise<void>;
}

export type IngestResult = { ok: true; videoId: string } | Failure;

const THUMBNAIL_MAX_BYTES = 10 * 1024 * 1024;

type Fail = Failure;
const fail400 = (message: string): Fail => failure('validation.invalid_input', message);

/** Step 1: the typed fields, or the first problem. */
export function validateDetails(
  input: Omit<IngestInput, 'filePath' | 'remote' | 'actorId'>,
): { ok: true; details: VideoDetails; typedDuration: string | null; publishAt: string | null } | Fail {
  const title = checkText(input.title, 'title', LIMITS.title);
  if (!title.ok) return fail400(title.error);
  if (title.value === '') return fail400(UPLOAD_REQUIRED_MESSAGE);
  const description = checkText(input.description, 'description', LIMITS.description, { multiLine: true });
  if (!description.ok) return fail400(description.error);
  const model = checkText(input.model, 'model', LIMITS.model);
  if (!model.ok) return fail400(model.error);
  const duration = parseDurationText(input.durationText);
  if (!duration.ok) return fail400(duration.error);
  const accessLevel = parseAccessLevel(input.accessLevel);
  if (!accessLevel.ok) return fail400(accessLevel.error);
  const tags = parseLabels(input.tags, 'tags');
  if (!tags.ok) return fail400(tags.error);
  const categories = parseLabels(input.categories, 'categories');
  if (!categories.ok) return fail400(categories.error);
  const exclusiveTo = parseExclusiveTo(input.exclusiveTo);
  if (!exclusiveTo.ok) return fail400(exclusiveTo.error);
  const publishAt = parsePublishAt(input.publishAt);
  if (!publishAt.ok) return fail400(publishAt.error);
  return {
    ok: true,
    typedDuration: duration.value === null ? null : (input.durationText ?? '').trim(),
    publishAt: publishAt.value,
    details: {
      title: title.value,
      description: description.value,
      modelName: model.value || null,
      accessLevel: accessLevel.value,
      tags: tags.value,
      categories: categories.value,
      exclusiveTo: exclusiveTo.value,
    },
  };
}

async function fileSize(p: string): Promise<number | null> {
  try {
    const s = await fsp.stat(p);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/** Stores the given thumbnail, or extracts one at ~10% of the video. */
async function storeThumbnail(
  storage: MediaStorage,
  videoId: string,
  /** The video: a file on this process's disk (read before it goes to the store), or a presigned URL. */
  videoPath: string,
  durationSeconds: number,
  given: { path: string; mimeType: string; extension: string } | null,
  atSeconds?: number | null,
): Promise<ThumbnailInfo> {
  if (given) {
    const { key } = await storage.putFile(videoId, `thumbnail.${given.extension}`, given.path);
    return { key, mimeType: given.mimeType, extracted: false };
  }
  const staged = await storage.stagingPath('.jpg');
  try {
    const at = atSeconds != null && atSeconds >= 0 && atSeconds < durationSeconds ? atSeconds : durationSeconds * 0.1;
    await extractThumbnail(videoPath, at, staged);
    if (!(await fileSize(staged))) await extractThumbnail(videoPath, 0, staged);
    const { key } = await storage.putFile(videoId, 'thumbnail.jpg', staged);
    return { key, mimeType: 'image/jpeg', extracted: true };
  } finally {
    await fsp.rm(staged, { force: true });
  }
}

/**
 * Ingests a complete video file (see the module comment for who owns the files).
 * @example const r = await ingestVideoFile(ctx, { filePath, title: 'Golden Hour', actorId: admin.id });
 */
export async function ingestVideoFile(ctx: AppContext, input: IngestInput, opts: IngestOptions = {}): Promise<IngestResult> {
  // 1. The typed fields and the file's presence.
  const checked = validateDetails(input);
  if (!checked.ok) return checked;
  const size = input.remote ? input.remote.size : input.filePath ? await fileSize(input.filePath) : null;
  if (!size) return fail400(UPLOAD_REQUIRED_MESSAGE);
  if (size > ctx.env.MAX_UPLOAD_BYTES)
    return failure('request.body_too_large', `The video file is too large (limit ${ctx.env.MAX_UPLOAD_BYTES} bytes)`);

  // 2. The thumbnail, when given, must be a real image.
  let thumbnail: { path: string; mimeType: string; extension: string } | null = null;
  if (input.thumbnailPath) {
    const thumbSize = await fileSize(input.thumbnailPath);
    if (thumbSize && thumbSize > THUMBNAIL_MAX_BYTES)
      return failure('request.body_too_large', `The thumbnail is too large (limit ${THUMBNAIL_MAX_BYTES} bytes)`);
    const type = thumbSize ? await imageTypeOfFile(input.thumbnailPath) : null;
    if (!type) return fail400('The thumbnail must be a JPEG, PNG or WebP image');
    thumbnail = { path: input.thumbnailPath, ...type };
  }

  // 3. The video, by its bytes (through a presigned URL when it is in the bucket already).
  const storage = ctx.media;
  const source = input.remote ? await input.remote.object.url(REMOTE_READ_SECONDS) : (input.filePath as string);
  let probed = await probeVideo(source);
  // A read cut short looks like a file that is not a video: the store decides (once more if it answers).
  if (!probed.ok && input.remote) {
    if (await storeDown(storage)) return failure('media.store_unavailable', MEDIA_STORE_UNAVAILABLE);
    probed = await probeVideo(source);
  }
  if (!probed.ok) return fail400(probed.error);
  const { probe } = probed;

  // 4. Into storage, then the event; any failure removes what was stored.
  const videoId = ctx.ids.next();
  const at = ctx.clock.now().toISOString();
  const endIngest = await storage.beginIngest(videoId);
  const recordWith = opts.inTransaction;
  let keepMarker = false;
  try {
    // The thumbnail first, from the file still on this disk (or, in the bucket, through its URL).
    let thumb: ThumbnailInfo;
    try {
      thumb = await storeThumbnail(storage, videoId, source, probe.durationSeconds, thumbnail, input.thumbnailAtSeconds);
    } catch (err) {
      if (err instanceof MediaStoreError) throw err;
      if (input.remote && (await storeDown(storage))) throw new MediaStoreError(MEDIA_STORE_UNAVAILABLE, 'unavailable');
      ctx.logger.warn({ err, videoId }, 'thumbnail extraction failed');
      await storage.removeVideo(videoId);
      return fail400('Could not read a frame from the video for its thumbnail; please upload a thumbnail image with it');
    }
    const name = `video.${probe.extension}`;
    const stored = input.remote
      ? await input.remote.object.copyTo(videoId, name, input.remote.size)
      : await storage.putFile(videoId, name, input.filePath as string);
    const video: VideoFileInfo = {
      key: stored.key,
      size: stored.size,
      mimeType: probe.mimeType,
      container: probe.formatName,
      codec: probe.codec,
      audioCodec: probe.audioCodec,
      width: probe.width,
      height: probe.height,
    };
    const result = await videos(ctx.store).handle(
      videoId,
      {
        type: 'RecordUpload',
        unpublished: input.published === false,
        publishAt: checked.publishAt,
        data: {
          videoId,
          ...checked.details,
          durationSeconds: Math.max(1, Math.round(probe.durationSeconds)),
          typedDuration: checked.typedDuration,
          video,
          thumbnail: thumb,
          uploadedBy: input.actorId,
          uploadedAt: at,
        },
      },
      eventMetadata(
        ctx,
        { actorId: input.actorId, requestId: input.requestId, actor: input.actor },
        { at, originalName: input.originalName ?? null, ...(input.contentSha256 && { contentSha256: input.contentSha256 }) },
      ),
      { inTransaction: recordWith && ((tx) => recordWith(tx, videoId)) },
    );
    if (!result.ok) throw new Error(result.error.message);
    return { ok: true, videoId };
  } catch (err) {
    // Nothing half-published: whatever reached the store goes. A store that does not answer now
    // (down, restarting) is asked again until it does; the ingest marker stays until then, so a
    // process that dies meanwhile removes the objects at its next start (sweepStaging).
    if (!(await removeIngested(ctx, storage, videoId))) {
      keepMarker = true;
      removeWhenBack(ctx, storage, videoId, endIngest);
    }
    if (err instanceof MediaStoreError) {
      ctx.logger.error({ err, videoId }, 'media store unavailable during an upload');
      return failure('media.store_unavailable', MEDIA_STORE_UNAVAILABLE);
    }
    throw err;
  } finally {
    if (!keepMarker) await endIngest();
  }
}

/** How long ffprobe and ffmpeg may read a video in the bucket during its ingestion (a probe and one thumbnail frame: seconds to minutes). */
const REMOTE_READ_SECONDS = 600;

/** Whether the media store cannot be reached right now (a refusal or a missing bucket is not "down"). */
const storeDown = (storage: MediaStorage) =>
  storage.check().then(
    () => false,
    (err) => err instanceof MediaStoreError && err.reason === 'unavailable',
  );

const removeIngested = (ctx: AppContext, storage: MediaStorage, videoId: string) =>
  storage.removeVideo(videoId).then(
    () => true,
    (err) => {
      ctx.logger.warn({ err, videoId }, 'could not remove a failed ingest yet; will retry');
      return false;
    },
  );

/** Retries removing a failed ingest's objects (every 2 s, backing off to once a minute, for up to a day), then drops its marker. */
function removeWhenBack(
  ctx: AppContext,
  storage: MediaStorage,
  videoId: string,
  endIngest: () => Promise<void>,
  delayMs = 2000,
  giveUpAt = Date.now() + 24 * 3600 * 1000,
): void {
  setTimeout(async () => {
    if (await removeIngested(ctx, storage, videoId)) {
      ctx.logger.info({ videoId }, 'objects of a failed ingest removed once the media store was back');
      await endIngest().catch(() => {});
    } else if (Date.now() < giveUpAt) removeWhenBack(ctx, storage, videoId, endIngest, Math.min(delayMs * 2, 60_000), giveUpAt);
  }, delayMs).unref();
}
