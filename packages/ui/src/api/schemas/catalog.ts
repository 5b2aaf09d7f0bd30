/** The catalog as the API answers it: the Video entity of spec §3, pages of videos, the admin's view. */
import { z } from 'zod';
import { multiLineText, singleLineText } from './text';

export const ACCESS_LEVEL_VALUES = ['free', 'premium', 'vip'] as const;
export const accessLevelSchema = z.enum(ACCESS_LEVEL_VALUES);

/** A video only annual subscribers may watch (behind-the-scenes, issue 40); null: its access level decides. */
export const EXCLUSIVE_TO_VALUES = ['annual'] as const;
export const exclusiveToSchema = z.enum(EXCLUSIVE_TO_VALUES);

/** A release time: ISO 8601 date-time with a `Z` or an offset (`2026-12-03T09:00:00+01:00`). */
export const publishAtSchema = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time with an offset (e.g. 2026-12-03T09:00:00Z)',
});

/** A caption track of a video (WebVTT; SRT uploads are converted): its BCP 47 language and its label. */
export const captionTrackSchema = z.object({ language: z.string(), label: z.string() }).meta({ id: 'CaptionTrack' });

export const videoSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    modelName: z.string().nullable(),
    /** Seconds, from ffprobe. */
    duration: z.number(),
    viewCount: z.number().int(),
    publishedDate: z.string().nullable(),
    /** Public URL of the thumbnail image. */
    thumbnailPath: z.string(),
    tags: z.array(z.string()),
    categories: z.array(z.string()),
    accessLevel: accessLevelSchema,
    /** The HLS renditions ready to stream, tallest first ("2160p", "1080p", …); empty until transcoded. */
    qualities: z.array(z.string()),
    /** Caption tracks, by language. */
    captions: z.array(captionTrackSchema),
    /** 'annual': only annual subscribers may watch it (behind-the-scenes); null: its access level decides. */
    exclusiveTo: exclusiveToSchema.nullable(),
    /** When the video is (or was) released, ISO 8601; null: no schedule. Members find it only from then on. */
    publishAt: z.string().nullable(),
    /** When THIS viewer's audience may watch it (`publishAt` + their plan's delay); null: now, or no schedule. */
    availableAt: z.string().nullable(),
  })
  .meta({ id: 'Video' });

/** The HLS transcode of a video: queued, running (percent done), completed, or failed with ffmpeg's message. */
export const transcodeStateSchema = z.object({
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  /** 0–100, recorded at a few steps. */
  progress: z.number().int(),
  error: z.string().nullable(),
});

export const videoPageSchema = z.object({
  videos: z.array(videoSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** The admin's view of a video: unpublished ones too, plus what the upload recorded. */
export const adminVideoSchema = videoSchema
  .extend({
    published: z.boolean(),
    uploadedAt: z.string().nullable(),
    updatedAt: z.string().nullable(),
    width: z.number().int(),
    height: z.number().int(),
    codec: z.string().nullable(),
    audioCodec: z.string().nullable(),
    /** Bytes. */
    size: z.number().int(),
    mimeType: z.string(),
    transcode: transcodeStateSchema,
  })
  .meta({ id: 'AdminVideo' });

export const adminVideoPageSchema = z.object({
  videos: z.array(adminVideoSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

export const deletedVideoSchema = z.object({ videoId: z.string(), deleted: z.literal(true) });

/** A caption track as POST /api/admin/videos/{id}/captions answers it. */
export const addedCaptionSchema = captionTrackSchema.extend({ cues: z.number().int(), format: z.enum(['vtt', 'srt']) });
export const deletedCaptionSchema = z.object({ videoId: z.string(), language: z.string(), deleted: z.literal(true) });

/**
 * A signed, expiring URL of a progressive file (GET /api/media/videos/{id}?u&e&r&s, the player's
 * fallback: the original for admins, for members the tallest rendition within their quality cap, or
 * null when none fits, e.g. before the transcode), the viewer's HLS master playlist and seek previews once transcoded (only the renditions
 * they may watch, listed in `qualities`), and the viewer's watermark. The URLs are same-origin paths
 * (`/api/…`, URI references): a client not on the site's origin resolves them against the API's base.
 */
export const streamInfoSchema = z.object({
  streamUrl: z.string().nullable(),
  hlsUrl: z.string().nullable(),
  previewsUrl: z.string().nullable(),
  qualities: z.array(z.string()),
  /** Each caption track with its signed WebVTT URL (a `<track>` for progressive playback; HLS lists them in the master). */
  captions: z.array(captionTrackSchema.extend({ url: z.string() })),
  watermarkText: z.string(),
  expiresAt: z.string(),
});

/** POST /admin/videos/{id}/transcode/retry. */
export const transcodeRetrySchema = z.object({ videoId: z.string(), status: z.literal('queued') });

export const viewAnswerSchema = z.object({ counted: z.boolean(), viewCount: z.number().int() });

/** POST /api/videos/{id}/watch-time: the seconds credited (the report bounded by the time since the viewer's previous one). */
export const watchTimeAnswerSchema = z.object({ recordedSeconds: z.number().int() });

export const uploadedVideoSchema = z.object({ videoId: z.string() });

/** GET /api/admin/uploads/{id}: a tus upload's progress, and the video once ingested. */
export const uploadStatusSchema = z.object({
  uploadId: z.string(),
  status: z.enum(['open', 'completed']),
  offset: z.number().int(),
  size: z.number().int().nullable(),
  videoId: z.string().nullable(),
});

/** Limits of a video's texts and labels (the upload, the tus metadata and the edit share them). */
export const VIDEO_LIMITS = { title: 200, description: 5000, model: 100, label: 64, labels: 30 } as const;

export const MAX_PAGE_SIZE = 100;

const text = (max: number) => z.string().trim().max(max).optional();

/** GET /videos and GET /admin/videos: filters, sort and page (query strings, coerced). */
export const videoListQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(24),
  q: text(200),
  model: text(100),
  category: text(64),
  tag: text(64),
  accessLevel: accessLevelSchema.optional(),
  /** `annual`: only the videos exclusive to the annual plan (the 'Behind the Scenes' tile). */
  exclusiveTo: exclusiveToSchema.optional(),
  sort: z.enum(['newest', 'popular']).default('newest'),
});

const labels = z.union([z.string().max(4000), z.array(z.string().max(VIDEO_LIMITS.label)).max(VIDEO_LIMITS.labels)]);

/**
 * PUT /admin/videos/{id}: every field optional; `published` publishes or unpublishes; nothing else is accepted.
 * `exclusiveTo` 'annual' or null; `publishAt` schedules the release (a future time keeps or makes the video
 * unpublished until then, a past one publishes it as of that time; null clears the schedule).
 */
export const videoEditSchema = z
  .object({
    // The text policy (text.ts): members read these; no control or direction characters.
    title: singleLineText({ min: 1, max: VIDEO_LIMITS.title, empty: 'must not be empty' }),
    description: multiLineText({ min: 0, max: VIDEO_LIMITS.description }),
    model: singleLineText({ min: 0, max: VIDEO_LIMITS.model }).nullable(),
    accessLevel: accessLevelSchema,
    tags: labels,
    categories: labels,
    published: z.boolean(),
    exclusiveTo: exclusiveToSchema.nullable(),
    publishAt: publishAtSchema.nullable(),
  })
  .partial()
  .strict();

const metadataText = (max: number) => z.string().max(max).optional();

/**
 * A tus upload's `Upload-Metadata` (POST /admin/uploads), decoded: `filename` and `title` required;
 * `durationText` as typed (mm:ss); `thumbnailAtSeconds` where to take the thumbnail frame. The same
 * field rules as a multipart upload then apply on the server.
 */
export const uploadMetadataSchema = z.object({
  filename: z.string().trim().min(1, 'required').max(255),
  title: z.string({ error: 'required' }).max(1000),
  description: metadataText(20_000),
  model: metadataText(500),
  accessLevel: metadataText(20),
  tags: metadataText(4000),
  categories: metadataText(4000),
  durationText: metadataText(20),
  /** 'annual', or empty for none. */
  exclusiveTo: metadataText(20),
  /** ISO 8601 date-time with an offset, or empty for none. */
  publishAt: metadataText(40),
  thumbnailAtSeconds: z
    .string()
    .regex(/^\d{1,6}(\.\d{1,3})?$/, 'a number of seconds')
    .transform(Number)
    .optional(),
});
