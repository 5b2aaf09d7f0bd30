/**
 * The catalog read model: one `videos` row per live video (deleted ones are removed) and one
 * `video_labels` row per tag or category (lower-cased, for exact filters), kept by the video events;
 * one `video_captions` row per caption track (language); `view_count` is kept by `ViewRecorded`
 * (streaming module), the transcode columns and the HLS ladder by the `Transcode*` events (transcode
 * module), `exclusive_to` and `publish_at` by the video events (issue 40), `private_to` by `CustomRequestDelivered` (custom requests module: the video is its
 * requester's alone).
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { type PreviewInfo, type RenditionInfo, type TranscodeResultEvent, type TranscodeStatus, transcodeStatusAfter } from './ladder.js';
import type { VideoDetails, VideoEvent } from './video.decider.js';

export const CATALOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS videos (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  model_name TEXT,
  duration_seconds INTEGER NOT NULL,
  access_level TEXT NOT NULL,
  tags TEXT NOT NULL,
  categories TEXT NOT NULL,
  published INTEGER NOT NULL,
  published_at TEXT,
  uploaded_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  view_count INTEGER NOT NULL DEFAULT 0,
  video_key TEXT NOT NULL,
  video_size BIGINT NOT NULL,
  video_mime TEXT NOT NULL,
  codec TEXT NOT NULL,
  audio_codec TEXT,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  thumbnail_key TEXT NOT NULL,
  thumbnail_mime TEXT NOT NULL,
  transcode_status TEXT NOT NULL DEFAULT 'queued',
  transcode_progress INTEGER NOT NULL DEFAULT 0,
  transcode_error TEXT,
  hls TEXT,
  private_to TEXT,
  captions TEXT NOT NULL DEFAULT '[]',
  exclusive_to TEXT,
  publish_at TEXT
);
CREATE INDEX IF NOT EXISTS videos_published ON videos (published, published_at);
CREATE TABLE IF NOT EXISTS video_labels (
  video_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  value_lower TEXT NOT NULL,
  PRIMARY KEY (video_id, kind, value_lower)
);
CREATE INDEX IF NOT EXISTS video_labels_value ON video_labels (kind, value_lower);
CREATE TABLE IF NOT EXISTS video_captions (
  video_id TEXT NOT NULL,
  language TEXT NOT NULL,
  label TEXT NOT NULL,
  caption_key TEXT NOT NULL,
  added_at TEXT NOT NULL,
  PRIMARY KEY (video_id, language)
);
`;

/** One caption track of a video (`CaptionTrack*` events). */
export interface CaptionRow {
  video_id: string;
  language: string;
  label: string;
  caption_key: string;
  added_at: string;
}

export interface VideoRow {
  id: string;
  title: string;
  description: string;
  model_name: string | null;
  duration_seconds: number;
  access_level: string;
  tags: string;
  categories: string;
  published: number;
  published_at: string | null;
  uploaded_at: string;
  updated_at: string;
  view_count: number;
  video_key: string;
  video_size: number;
  video_mime: string;
  codec: string;
  audio_codec: string | null;
  width: number;
  height: number;
  thumbnail_key: string;
  thumbnail_mime: string;
  /** queued | running | completed | failed (the transcode module's events). */
  transcode_status: TranscodeStatus;
  transcode_progress: number;
  transcode_error: string | null;
  /** JSON `HlsLadder` once a transcode completed, else null. */
  hls: string | null;
  /** The member a custom request delivered this video to (null: the catalog's, for everyone). */
  private_to: string | null;
  /** JSON `[{ language, label }]`, the caption tracks by language (copied from `video_captions`). */
  captions: string;
  /** 'annual': behind-the-scenes, annual subscribers only; null: the access level decides. */
  exclusive_to: string | null;
  /** The release schedule (ISO 8601 UTC, `VideoReleaseScheduled`); null: none. */
  publish_at: string | null;
}

/** What a completed transcode recorded: the renditions (tallest first) and the seek previews. */
export interface HlsLadder {
  renditions: RenditionInfo[];
  previews: PreviewInfo | null;
}

async function writeLabels(tx: Queryable, videoId: string, kind: 'tag' | 'category', values: string[]): Promise<void> {
  await tx.run('DELETE FROM video_labels WHERE video_id = ? AND kind = ?', [videoId, kind]);
  const unique = [...new Set(values.map((v) => v.toLowerCase()))];
  for (const v of unique) await tx.run('INSERT INTO video_labels (video_id, kind, value_lower) VALUES (?, ?, ?)', [videoId, kind, v]);
}

/** The video row's copy of its tracks, so a catalog page needs no second query. */
async function writeCaptionList(tx: Queryable, videoId: string): Promise<void> {
  const rows = await tx.all<{ language: string; label: string }>(
    'SELECT language, label FROM video_captions WHERE video_id = ? ORDER BY language',
    [videoId],
  );
  await tx.run('UPDATE videos SET captions = ? WHERE id = ?', [
    JSON.stringify(rows.map((r) => ({ language: r.language, label: r.label }))),
    videoId,
  ]);
}

const COLUMNS: Record<keyof VideoDetails, string> = {
  title: 'title',
  description: 'description',
  modelName: 'model_name',
  accessLevel: 'access_level',
  tags: 'tags',
  categories: 'categories',
  exclusiveTo: 'exclusive_to',
};

async function applyVideoEvent(tx: Queryable, event: VideoEvent): Promise<void> {
  switch (event.type) {
    case 'VideoUploaded': {
      const d = event.data;
      await tx.run(
        `INSERT INTO videos (id, title, description, model_name, duration_seconds, access_level, tags, categories, published,
           published_at, uploaded_at, updated_at, view_count, video_key, video_size, video_mime, codec, audio_codec, width, height,
           thumbnail_key, thumbnail_mime, exclusive_to)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO NOTHING`,
        [
          d.videoId,
          d.title,
          d.description,
          d.modelName,
          d.durationSeconds,
          d.accessLevel,
          JSON.stringify(d.tags),
          JSON.stringify(d.categories),
          d.uploadedAt,
          d.uploadedAt,
          d.uploadedAt,
          d.video.key,
          d.video.size,
          d.video.mimeType,
          d.video.codec,
          d.video.audioCodec,
          d.video.width,
          d.video.height,
          d.thumbnail.key,
          d.thumbnail.mimeType,
          // Uploads recorded before issue 40 carry none.
          d.exclusiveTo ?? null,
        ],
      );
      await writeLabels(tx, d.videoId, 'tag', d.tags);
      await writeLabels(tx, d.videoId, 'category', d.categories);
      return;
    }
    case 'VideoUpdated': {
      const { videoId, changes, updatedAt } = event.data;
      for (const [field, value] of Object.entries(changes) as [keyof VideoDetails, unknown][]) {
        const column = COLUMNS[field];
        if (!column || value === undefined) continue;
        const stored = Array.isArray(value) ? JSON.stringify(value) : value;
        await tx.run(`UPDATE videos SET ${column} = ? WHERE id = ?`, [stored, videoId]);
      }
      if (changes.tags) await writeLabels(tx, videoId, 'tag', changes.tags);
      if (changes.categories) await writeLabels(tx, videoId, 'category', changes.categories);
      await tx.run('UPDATE videos SET updated_at = ? WHERE id = ?', [updatedAt, videoId]);
      return;
    }
    case 'VideoPublished':
      // The published date is the first publication; re-publishing keeps it.
      await tx.run('UPDATE videos SET published = 1, published_at = COALESCE(published_at, ?), updated_at = ? WHERE id = ?', [
        event.data.publishedAt,
        event.data.publishedAt,
        event.data.videoId,
      ]);
      return;
    case 'VideoUnpublished':
      await tx.run('UPDATE videos SET published = 0, updated_at = ? WHERE id = ?', [event.data.unpublishedAt, event.data.videoId]);
      return;
    case 'VideoReleaseScheduled': {
      // A scheduled video's published date is its release time (its plans' delays count from it too).
      const { videoId, publishAt, scheduledAt } = event.data;
      await tx.run('UPDATE videos SET publish_at = ?, published_at = COALESCE(?, published_at), updated_at = ? WHERE id = ?', [
        publishAt,
        publishAt,
        scheduledAt,
        videoId,
      ]);
      return;
    }
    case 'CaptionTrackAdded': {
      const d = event.data;
      await tx.run('DELETE FROM video_captions WHERE video_id = ? AND language = ?', [d.videoId, d.language]);
      await tx.run('INSERT INTO video_captions (video_id, language, label, caption_key, added_at) VALUES (?, ?, ?, ?, ?)', [
        d.videoId,
        d.language,
        d.label,
        d.key,
        d.addedAt,
      ]);
      await writeCaptionList(tx, d.videoId);
      return;
    }
    case 'CaptionTrackRemoved':
      await tx.run('DELETE FROM video_captions WHERE video_id = ? AND language = ?', [event.data.videoId, event.data.language]);
      await writeCaptionList(tx, event.data.videoId);
      return;
    case 'VideoDeleted':
      await tx.run('DELETE FROM video_captions WHERE video_id = ?', [event.data.videoId]);
      await tx.run('DELETE FROM video_labels WHERE video_id = ?', [event.data.videoId]);
      await tx.run('DELETE FROM videos WHERE id = ?', [event.data.videoId]);
      return;
  }
}

/** The video's transcode columns, as `transcodeStatusAfter` (ladder.ts) says. */
async function applyTranscodeEvent(tx: Queryable, event: TranscodeResultEvent): Promise<void> {
  const next = transcodeStatusAfter(event);
  const columns: [string, unknown][] = [];
  if (next.status !== undefined) columns.push(['transcode_status', next.status]);
  if (next.progress !== undefined) columns.push(['transcode_progress', next.progress]);
  if (next.error !== undefined) columns.push(['transcode_error', next.error]);
  if (next.ladder !== undefined) columns.push(['hls', JSON.stringify(next.ladder satisfies HlsLadder)]);
  await tx.run(`UPDATE videos SET ${columns.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`, [
    ...columns.map(([, v]) => v),
    event.data.videoId,
  ]);
}

export const catalogProjection: Projection = {
  name: 'catalog',
  // 3: `private_to`, the member a custom request's video was delivered to (CustomRequestDelivered).
  // 4: video_captions (caption tracks); rebuilt from the log, no migration.
  // 5: `exclusive_to` and `publish_at` (issue 40: behind-the-scenes, scheduled releases); rebuilt from the log.
  version: 5,
  tables: ['videos', 'video_labels', 'video_captions'],
  schema: CATALOG_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    if (event.type === 'CustomRequestDelivered') {
      // A delivered custom video: only its requester (and admins) may find and stream it from now on.
      const d = event.data as { videoId: string; userId: string };
      await tx.run('UPDATE videos SET private_to = ? WHERE id = ?', [d.userId, d.videoId]);
      return;
    }
    if (event.type === 'ViewRecorded') {
      await tx.run('UPDATE videos SET view_count = view_count + 1 WHERE id = ?', [(event.data as { videoId: string }).videoId]);
      return;
    }
    if (event.type.startsWith('Video') || event.type.startsWith('CaptionTrack')) await applyVideoEvent(tx, event as unknown as VideoEvent);
    else if (event.type.startsWith('Transcode')) await applyTranscodeEvent(tx, event as unknown as TranscodeResultEvent);
  },
};
