/**
 * The catalog read model (`videos`, `video_labels`, `video_captions`), given the video, transcode and view events as
 * their deciders decide them, then its rows (live and rebuilt from the log).
 */
import { describe, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { viewingDecider, viewsStreamId } from '../streaming/viewing.decider.js';
import { transcodeDecider, transcodeStreamId } from '../transcode/transcode.decider.js';
import { catalogProjection } from './catalog.projection.js';
import { importsProjection } from './imports.projection.js';
import { type VideoCommand, type VideoUploaded, videoDecider, videoStreamId } from './video.decider.js';

const V1 = 'v1000000-0000-4000-8000-000000000001';
const V2 = 'v2000000-0000-4000-8000-000000000002';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-03T10:30:00.000Z';
const T3 = '2026-03-04T11:45:00.000Z';
const T4 = '2026-03-05T12:00:00.000Z';

const { given } = projectionSpec(catalogProjection);

function uploadData(videoId: string, over: Partial<VideoUploaded['data']> = {}): VideoUploaded['data'] {
  return {
    videoId,
    title: 'Golden hour',
    description: 'Line one\nline two',
    modelName: 'Ada',
    accessLevel: 'premium',
    tags: ['Golden Hour', 'golden hour', 'Beach'],
    categories: ['Outdoor'],
    durationSeconds: 125,
    typedDuration: '2:05',
    video: {
      key: `videos/${videoId}.mp4`,
      size: 1_234_567,
      mimeType: 'video/mp4',
      container: 'mp4',
      codec: 'h264',
      audioCodec: 'aac',
      width: 1920,
      height: 1080,
    },
    thumbnail: { key: `thumbs/${videoId}.jpg`, mimeType: 'image/jpeg', extracted: true },
    uploadedBy: 'admin-1',
    uploadedAt: T1,
    ...over,
  };
}

/** A video's stream, uploaded at T1 (its first decision is the upload). */
function video(videoId: string, over: Partial<VideoUploaded['data']> = {}) {
  const s = stream(videoStreamId(videoId));
  const uploaded = s.decide(videoDecider, { type: 'RecordUpload', data: uploadData(videoId, over) }, T1);
  const edit = (data: Extract<VideoCommand, { type: 'EditVideo' }>['data']) => s.decide(videoDecider, { type: 'EditVideo', data });
  return { ...s, uploaded, edit };
}

function transcode(videoId: string) {
  const s = stream(transcodeStreamId(videoId));
  return {
    start: (at: string) => s.decide(transcodeDecider, { type: 'StartTranscode', data: { videoId, renditions: ['1080p', '720p'], at } }),
    progress: (attempt: number, percent: number, at: string) =>
      s.decide(transcodeDecider, { type: 'RecordProgress', data: { videoId, attempt, percent, at } }),
    complete: (attempt: number, at: string) =>
      s.decide(transcodeDecider, {
        type: 'CompleteTranscode',
        data: {
          videoId,
          attempt,
          renditions: [
            { name: '1080p', width: 1920, height: 1080, bandwidth: 5_000_000, codecs: 'avc1.640028,mp4a.40.2' },
            { name: '720p', width: 1280, height: 720, bandwidth: 2_800_000, codecs: 'avc1.64001f,mp4a.40.2' },
          ],
          previews: { interval: 5, count: 25, width: 160, height: 90, columns: 5, rows: 5 },
          totalBytes: 9_876_543,
          ffmpegSeconds: 12.5,
          at,
        },
      }),
    fail: (attempt: number, error: string, at: string) =>
      s.decide(transcodeDecider, { type: 'FailTranscode', data: { videoId, attempt, error, at } }),
    retry: (at: string) => s.decide(transcodeDecider, { type: 'RetryTranscode', data: { videoId, actorId: 'admin-1', at } }),
  };
}

const view = (videoId: string, userId: string, at: string) =>
  stream(viewsStreamId(videoId, userId)).decide(viewingDecider, { type: 'RecordView', data: { videoId, userId, watchedSeconds: 42, at } });

const LABELS = 'SELECT video_id, kind, value_lower FROM video_labels ORDER BY video_id, kind, value_lower';
const TRANSCODE = 'SELECT transcode_status, transcode_progress, transcode_error, hls FROM videos';

describe('catalog projection', () => {
  it('VideoUploaded: a published row with every column, and its labels lower-cased once each', async () => {
    const v = video(V1);
    await given(v.uploaded).thenTables({
      'SELECT * FROM videos': [
        {
          id: V1,
          title: 'Golden hour',
          description: 'Line one\nline two',
          model_name: 'Ada',
          duration_seconds: 125,
          access_level: 'premium',
          tags: '["Golden Hour","golden hour","Beach"]',
          categories: '["Outdoor"]',
          published: 1,
          published_at: T1,
          uploaded_at: T1,
          updated_at: T1,
          view_count: 0,
          video_key: `videos/${V1}.mp4`,
          video_size: 1_234_567,
          video_mime: 'video/mp4',
          codec: 'h264',
          audio_codec: 'aac',
          width: 1920,
          height: 1080,
          thumbnail_key: `thumbs/${V1}.jpg`,
          thumbnail_mime: 'image/jpeg',
          transcode_status: 'queued',
          transcode_progress: 0,
          transcode_error: null,
          hls: null,
          captions: '[]',
          private_to: null,
          // An upload recorded without them (as before issue 40) reads as neither exclusive nor scheduled.
          exclusive_to: null,
          publish_at: null,
        },
      ],
      [LABELS]: [
        { video_id: V1, kind: 'category', value_lower: 'outdoor' },
        { video_id: V1, kind: 'tag', value_lower: 'beach' },
        { video_id: V1, kind: 'tag', value_lower: 'golden hour' },
      ],
    });
  });

  it('VideoUploaded without a model or audio: those columns are null', async () => {
    const v = video(V1, { modelName: null, video: { ...uploadData(V1).video, audioCodec: null } });
    await given(v.uploaded).thenRows('SELECT model_name, audio_codec FROM videos', [{ model_name: null, audio_codec: null }]);
  });

  it('VideoUpdated: only the changed columns, the labels of a changed list rewritten, updated_at', async () => {
    const v = video(V1);
    const updated = v.edit({
      videoId: V1,
      changes: { title: 'Blue hour', modelName: null, accessLevel: 'vip', tags: ['Dusk'], description: 'Line one\nline two' },
      actorId: 'admin-1',
      at: T2,
    });
    await given(v.uploaded, updated).thenTables({
      'SELECT title, description, model_name, access_level, tags, categories, uploaded_at, updated_at FROM videos': [
        {
          title: 'Blue hour',
          description: 'Line one\nline two',
          model_name: null,
          access_level: 'vip',
          tags: '["Dusk"]',
          categories: '["Outdoor"]',
          uploaded_at: T1,
          updated_at: T2,
        },
      ],
      [LABELS]: [
        { video_id: V1, kind: 'category', value_lower: 'outdoor' },
        { video_id: V1, kind: 'tag', value_lower: 'dusk' },
      ],
    });
  });

  it('VideoUpdated of the categories only: the tags keep their labels', async () => {
    const v = video(V1);
    const updated = v.edit({ videoId: V1, changes: { categories: ['Studio', 'Indoor'] }, actorId: 'admin-1', at: T2 });
    await given(v.uploaded, updated).thenRows(LABELS, [
      { video_id: V1, kind: 'category', value_lower: 'indoor' },
      { video_id: V1, kind: 'category', value_lower: 'studio' },
      { video_id: V1, kind: 'tag', value_lower: 'beach' },
      { video_id: V1, kind: 'tag', value_lower: 'golden hour' },
    ]);
  });

  it('VideoUnpublished then VideoPublished: hidden, then shown again with its first publication date', async () => {
    const v = video(V1);
    const unpublished = v.edit({ videoId: V1, changes: {}, publish: false, actorId: 'admin-1', at: T2 });
    const row = 'SELECT published, published_at, updated_at FROM videos';
    await given(v.uploaded, unpublished).thenRows(row, [{ published: 0, published_at: T1, updated_at: T2 }]);
    const republished = v.edit({ videoId: V1, changes: {}, publish: true, actorId: 'admin-1', at: T3 });
    await given(v.uploaded, unpublished, republished).thenRows(row, [{ published: 1, published_at: T1, updated_at: T3 }]);
  });

  it('exclusiveTo, VideoReleaseScheduled and the release: exclusive_to, publish_at, hidden until the release, dated by the schedule', async () => {
    const v = video(V1, { exclusiveTo: 'annual' });
    const row = 'SELECT exclusive_to, published, published_at, publish_at FROM videos';
    const scheduled = v.edit({ videoId: V1, changes: {}, publishAt: T3, actorId: 'admin-1', at: T2 });
    await given(v.uploaded, scheduled).thenRows(row, [{ exclusive_to: 'annual', published: 0, published_at: T3, publish_at: T3 }]);
    const released = v.decide(videoDecider, { type: 'ReleaseVideo', data: { videoId: V1, at: T4 } });
    await given(v.uploaded, scheduled, released).thenRows(row, [
      { exclusive_to: 'annual', published: 1, published_at: T3, publish_at: T3 },
    ]);
    const open = v.edit({ videoId: V1, changes: { exclusiveTo: null }, publishAt: null, actorId: 'admin-1', at: T4 });
    await given(v.uploaded, scheduled, released, open).thenRows(row, [
      { exclusive_to: null, published: 1, published_at: T3, publish_at: null },
    ]);
  });

  it('VideoDeleted: its row and labels are gone, another video stays', async () => {
    const v1 = video(V1);
    const v2 = video(V2, { tags: ['Other'], categories: [] });
    const deleted = v1.decide(videoDecider, { type: 'DeleteVideo', data: { videoId: V1, actorId: 'admin-1', at: T2 } });
    await given(v1.uploaded, v2.uploaded, deleted).thenTables({
      'SELECT id FROM videos': [{ id: V2 }],
      [LABELS]: [{ video_id: V2, kind: 'tag', value_lower: 'other' }],
    });
  });

  it('CaptionTrackAdded/Removed: one row per language, the same language replaced, gone with the video', async () => {
    const v1 = video(V1);
    const v2 = video(V2);
    const track = (videoId: string, language: string, label: string, hash: string) => ({
      language,
      label,
      key: `videos/${videoId}/captions/${language}.${hash}.vtt`,
      format: 'vtt' as const,
      cues: 3,
    });
    const add = (s: typeof v1, videoId: string, t: ReturnType<typeof track>, at: string) =>
      s.decide(videoDecider, { type: 'AddCaptionTrack', data: { videoId, track: t, actorId: 'admin-1', at } });
    const en = add(v1, V1, track(V1, 'en', 'English', '0000000a'), T2);
    const pt = add(v1, V1, track(V1, 'pt-BR', 'Português (Brasil)', '0000000b'), T2);
    const enAgain = add(v1, V1, track(V1, 'en', 'English (CC)', '0000000c'), T3);
    const other = add(v2, V2, track(V2, 'en', 'English', '0000000d'), T3);
    const CAPTIONS = 'SELECT video_id, language, label, caption_key, added_at FROM video_captions ORDER BY video_id, language';
    await given(v1.uploaded, v2.uploaded, en, pt, enAgain, other).thenRows(CAPTIONS, [
      { video_id: V1, language: 'en', label: 'English (CC)', caption_key: `videos/${V1}/captions/en.0000000c.vtt`, added_at: T3 },
      {
        video_id: V1,
        language: 'pt-BR',
        label: 'Português (Brasil)',
        caption_key: `videos/${V1}/captions/pt-BR.0000000b.vtt`,
        added_at: T2,
      },
      { video_id: V2, language: 'en', label: 'English', caption_key: `videos/${V2}/captions/en.0000000d.vtt`, added_at: T3 },
    ]);
    const removed = v1.decide(videoDecider, {
      type: 'RemoveCaptionTrack',
      data: { videoId: V1, language: 'pt-BR', actorId: 'admin-1', at: T4 },
    });
    await given(v1.uploaded, v2.uploaded, en, pt, enAgain, other, removed).thenRows(CAPTIONS, [
      { video_id: V1, language: 'en', label: 'English (CC)', caption_key: `videos/${V1}/captions/en.0000000c.vtt`, added_at: T3 },
      { video_id: V2, language: 'en', label: 'English', caption_key: `videos/${V2}/captions/en.0000000d.vtt`, added_at: T3 },
    ]);
    const deleted = v1.decide(videoDecider, { type: 'DeleteVideo', data: { videoId: V1, actorId: 'admin-1', at: T4 } });
    await given(v1.uploaded, v2.uploaded, en, pt, enAgain, other, removed, deleted).thenRows(
      'SELECT video_id, language FROM video_captions',
      [{ video_id: V2, language: 'en' }],
    );
  });

  it('ViewRecorded: one more view on that video only', async () => {
    const v1 = video(V1);
    const v2 = video(V2);
    await given(v1.uploaded, v2.uploaded, view(V1, 'u1', T2), view(V1, 'u2', T2), view(V2, 'u1', T3)).thenRows(
      'SELECT id, view_count FROM videos ORDER BY id',
      [
        { id: V1, view_count: 2 },
        { id: V2, view_count: 1 },
      ],
    );
  });

  it('TranscodeStarted and TranscodeProgressed: running, with the last percentage', async () => {
    const v = video(V1);
    const t = transcode(V1);
    await given(v.uploaded, t.start(T2), t.progress(1, 40, T2), t.progress(1, 75.6, T2)).thenRows(TRANSCODE, [
      { transcode_status: 'running', transcode_progress: 75, transcode_error: null, hls: null },
    ]);
  });

  it('TranscodeCompleted: completed at 100 % with the ladder and previews as JSON', async () => {
    const v = video(V1);
    const t = transcode(V1);
    await given(v.uploaded, t.start(T2), t.progress(1, 50, T2), t.complete(1, T3)).thenRows(TRANSCODE, [
      {
        transcode_status: 'completed',
        transcode_progress: 100,
        transcode_error: null,
        hls: JSON.stringify({
          renditions: [
            { name: '1080p', width: 1920, height: 1080, bandwidth: 5_000_000, codecs: 'avc1.640028,mp4a.40.2' },
            { name: '720p', width: 1280, height: 720, bandwidth: 2_800_000, codecs: 'avc1.64001f,mp4a.40.2' },
          ],
          previews: { interval: 5, count: 25, width: 160, height: 90, columns: 5, rows: 5 },
        }),
      },
    ]);
  });

  it("TranscodeFailed: failed with ffmpeg's message, the progress where it stopped", async () => {
    const v = video(V1);
    const t = transcode(V1);
    await given(v.uploaded, t.start(T2), t.progress(1, 30, T2), t.fail(1, 'Invalid data found when processing input', T3)).thenRows(
      TRANSCODE,
      [{ transcode_status: 'failed', transcode_progress: 30, transcode_error: 'Invalid data found when processing input', hls: null }],
    );
  });

  it('TranscodeRetried: queued again from 0 without the error; the next attempt runs and completes', async () => {
    const v = video(V1);
    const t = transcode(V1);
    const history = [v.uploaded, t.start(T2), t.progress(1, 30, T2), t.fail(1, 'killed', T2), t.retry(T3)];
    await given(...history).thenRows(TRANSCODE, [{ transcode_status: 'queued', transcode_progress: 0, transcode_error: null, hls: null }]);
    await given(...history, t.start(T4), t.progress(2, 10, T4)).thenRows(TRANSCODE, [
      { transcode_status: 'running', transcode_progress: 10, transcode_error: null, hls: null },
    ]);
  });
});

describe('video imports projection', () => {
  const imports = projectionSpec(importsProjection);
  const ROWS = 'SELECT sha256, video_id, original_name, imported_at, deleted_at FROM video_imports ORDER BY sha256';

  it("keeps one row per imported file's SHA-256, none for an upload that is not an import, and marks a deleted video's row", async () => {
    const v1 = video(V1);
    const v2 = video(V2);
    const imported = { ...v1.uploaded, metadata: { contentSha256: 'aa11', originalName: 'beach.mp4' } };
    const deleted = v1.decide(videoDecider, { type: 'DeleteVideo', data: { videoId: V1, actorId: 'admin-1', at: T2 } });
    await imports
      .given(imported, v2.uploaded)
      .thenRows(ROWS, [{ sha256: 'aa11', video_id: V1, original_name: 'beach.mp4', imported_at: T1, deleted_at: null }]);
    // The row stays after a delete, so a later import run does not bring back what the admin removed.
    await imports
      .given(imported, v2.uploaded, deleted)
      .thenRows(ROWS, [{ sha256: 'aa11', video_id: V1, original_name: 'beach.mp4', imported_at: T1, deleted_at: T2 }]);
  });
});
