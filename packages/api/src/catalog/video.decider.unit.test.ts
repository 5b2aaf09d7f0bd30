import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { type VideoUploaded, videoDecider } from './video.decider';

const uploaded: VideoUploaded = {
  type: 'VideoUploaded',
  data: {
    videoId: 'v1',
    title: 'T',
    description: '',
    modelName: null,
    accessLevel: 'premium',
    tags: ['a'],
    categories: [],
    durationSeconds: 3,
    typedDuration: null,
    video: {
      key: 'videos/v1/video.mp4',
      size: 1,
      mimeType: 'video/mp4',
      container: 'mp4',
      codec: 'h264',
      audioCodec: 'aac',
      width: 1,
      height: 1,
    },
    thumbnail: { key: 'videos/v1/thumbnail.jpg', mimeType: 'image/jpeg', extracted: true },
    uploadedBy: 'admin',
    uploadedAt: '2026-01-01T00:00:00Z',
  },
};
const { given } = deciderSpec(videoDecider);
const edit = (changes: object, publish?: boolean) => ({
  type: 'EditVideo' as const,
  data: { videoId: 'v1', changes, publish, actorId: 'admin', at: '2026-01-02T00:00:00Z' },
});

describe('video decider', () => {
  it('given nothing, an edit is not found', () => {
    expect(given([]).when(edit({ title: 'x' }))).toMatchObject({
      ok: false,
      error: { code: 'video.not_found', status: 404, message: 'Video not found' },
    });
  });
  it('a second upload to one stream is a conflict', () => {
    expect(given([uploaded]).when({ type: 'RecordUpload', data: uploaded.data })).toMatchObject({ ok: false });
  });
  it('an upload recorded unpublished (an import) is hidden from members in the same append', () => {
    expect(given([]).when({ type: 'RecordUpload', data: uploaded.data })).toEqual({ ok: true, events: [uploaded] });
    expect(given([]).when({ type: 'RecordUpload', data: uploaded.data, unpublished: true })).toEqual({
      ok: true,
      events: [
        uploaded,
        { type: 'VideoUnpublished', data: { videoId: 'v1', unpublishedBy: 'admin', unpublishedAt: '2026-01-01T00:00:00Z' } },
      ],
    });
  });
  it('only real changes are recorded', () => {
    const r = given([uploaded]).when(edit({ title: 'T', tags: ['a'], accessLevel: 'vip' }));
    expect(r).toMatchObject({ ok: true, events: [{ type: 'VideoUpdated', data: { changes: { accessLevel: 'vip' } } }] });
    expect(given([uploaded]).when(edit({ title: 'T' }))).toEqual({ ok: true, events: [] });
  });
  it('unpublish then publish', () => {
    const r = given([uploaded]).when(edit({}, false));
    expect(r).toMatchObject({ ok: true, events: [{ type: 'VideoUnpublished' }] });
    const unpublished = given([uploaded, ...(r.ok ? r.events : [])]);
    expect(unpublished.when(edit({}, true))).toMatchObject({ ok: true, events: [{ type: 'VideoPublished' }] });
    expect(unpublished.when(edit({}, false))).toEqual({ ok: true, events: [] });
  });
  it('deleted videos cannot be edited or deleted again', () => {
    const deleted = given([uploaded, { type: 'VideoDeleted', data: { videoId: 'v1', deletedBy: 'a', deletedAt: 'x' } }]);
    expect(deleted.when({ type: 'DeleteVideo', data: { videoId: 'v1', actorId: 'a', at: 'x' } })).toMatchObject({
      ok: false,
    });
    expect(deleted.when(edit({ title: 'y' }))).toMatchObject({ ok: false });
  });
  it('caption tracks: added, replaced by the same language, removed; removing a missing one is not found', () => {
    const track = { language: 'en', label: 'English', key: 'videos/v1/captions/en.0000aaaa.vtt', format: 'vtt' as const, cues: 2 };
    const add = (t: typeof track) => ({ type: 'AddCaptionTrack' as const, data: { videoId: 'v1', track: t, actorId: 'admin', at: 'x' } });
    const remove = { type: 'RemoveCaptionTrack' as const, data: { videoId: 'v1', language: 'en', actorId: 'admin', at: 'y' } };
    const added = given([uploaded]).when(add(track));
    expect(added).toEqual({
      ok: true,
      events: [{ type: 'CaptionTrackAdded', data: { ...track, videoId: 'v1', addedBy: 'admin', addedAt: 'x' } }],
    });
    const withEn = given([uploaded, ...(added.ok ? added.events : [])]);
    const replaced = withEn.when(add({ ...track, key: 'videos/v1/captions/en.0000bbbb.vtt' }));
    const afterReplace = given([uploaded, ...(added.ok ? added.events : []), ...(replaced.ok ? replaced.events : [])]);
    expect(afterReplace.when(remove)).toEqual({
      ok: true,
      events: [
        {
          type: 'CaptionTrackRemoved',
          data: { videoId: 'v1', language: 'en', key: 'videos/v1/captions/en.0000bbbb.vtt', removedBy: 'admin', removedAt: 'y' },
        },
      ],
    });
    expect(given([uploaded]).when(remove)).toMatchObject({
      ok: false,
      error: { code: 'caption.not_found', message: 'Caption track not found' },
    });
    expect(given([]).when(add(track))).toMatchObject({ ok: false, error: { code: 'video.not_found' } });
  });
});

describe('video decider — behind-the-scenes and scheduled releases (issue 40)', () => {
  const at = '2026-01-02T00:00:00Z';
  const later = '2026-01-05T09:00:00.000Z';
  const earlier = '2025-12-30T09:00:00.000Z';
  const schedule = (publishAt: string | null, when = at) => ({
    type: 'EditVideo' as const,
    data: { videoId: 'v1', changes: {}, publishAt, actorId: 'admin', at: when },
  });
  const scheduled = (publishAt: string | null) => ({
    type: 'VideoReleaseScheduled' as const,
    data: { videoId: 'v1', publishAt, scheduledBy: 'admin', scheduledAt: at },
  });
  const unpublished = { type: 'VideoUnpublished' as const, data: { videoId: 'v1', unpublishedBy: 'admin', unpublishedAt: at } };
  const release = (when: string) => ({ type: 'ReleaseVideo' as const, data: { videoId: 'v1', at: when } });

  it('exclusiveTo is an editable detail; an upload recorded before it reads as null (an unchanged null records nothing)', () => {
    expect(given([uploaded]).when(edit({ exclusiveTo: null }))).toEqual({ ok: true, events: [] });
    expect(given([uploaded]).when(edit({ exclusiveTo: 'annual' }))).toMatchObject({
      ok: true,
      events: [{ type: 'VideoUpdated', data: { changes: { exclusiveTo: 'annual' } } }],
    });
  });

  it('a future publishAt on a published video records the schedule and unpublishes it until then', () => {
    expect(given([uploaded]).when(schedule(later))).toEqual({ ok: true, events: [scheduled(later), unpublished] });
  });

  it('a past publishAt publishes a hidden video at once, as of that time; on a published one it only records the time', () => {
    expect(given([uploaded, unpublished]).when(schedule(earlier))).toEqual({
      ok: true,
      events: [scheduled(earlier), { type: 'VideoPublished', data: { videoId: 'v1', publishedBy: 'admin', publishedAt: earlier } }],
    });
    expect(given([uploaded]).when(schedule(earlier))).toEqual({ ok: true, events: [scheduled(earlier)] });
  });

  it('the release job publishes once, at the schedule time, and records nothing before it or after it is out', () => {
    const history = [uploaded, scheduled(later), unpublished];
    expect(given(history).when(release('2026-01-05T08:59:59Z'))).toEqual({ ok: true, events: [] });
    const published = { type: 'VideoPublished' as const, data: { videoId: 'v1', publishedBy: 'release-scheduler', publishedAt: later } };
    expect(given(history).when(release('2026-01-05T09:00:30Z'))).toEqual({ ok: true, events: [published] });
    expect(given([...history, published]).when(release('2026-01-05T09:01:00Z'))).toEqual({ ok: true, events: [] });
    expect(given([uploaded, unpublished]).when(release('2026-01-05T09:01:00Z'))).toEqual({ ok: true, events: [] });
  });

  it('contradictions are refused: published true with a future time, published false with a past one', () => {
    const both = (publish: boolean, publishAt: string) => ({ ...schedule(publishAt), data: { ...schedule(publishAt).data, publish } });
    expect(given([uploaded]).when(both(true, later))).toMatchObject({
      ok: false,
      error: { code: 'validation.invalid_input', status: 400 },
    });
    expect(given([uploaded]).when(both(false, earlier))).toMatchObject({ ok: false, error: { code: 'validation.invalid_input' } });
    expect(given([uploaded]).when(both(false, later))).toEqual({ ok: true, events: [scheduled(later), unpublished] });
  });

  it('publishing by hand before the time moves the schedule to now; unpublishing by hand or null clears it', () => {
    const history = [uploaded, scheduled(later), unpublished];
    expect(given(history).when(edit({}, true))).toEqual({
      ok: true,
      events: [scheduled(at), { type: 'VideoPublished', data: { videoId: 'v1', publishedBy: 'admin', publishedAt: at } }],
    });
    expect(given(history).when(edit({}, false))).toEqual({ ok: true, events: [scheduled(null)] });
    expect(given(history).when(schedule(null))).toEqual({ ok: true, events: [scheduled(null)] });
    expect(given([uploaded]).when(schedule(null))).toEqual({ ok: true, events: [] });
  });

  it('an upload with a future publishAt is recorded hidden with its schedule, in the same append', () => {
    expect(given([]).when({ type: 'RecordUpload', data: { ...uploaded.data, uploadedAt: at }, publishAt: later })).toMatchObject({
      ok: true,
      events: [{ type: 'VideoUploaded' }, { type: 'VideoReleaseScheduled', data: { publishAt: later } }, { type: 'VideoUnpublished' }],
    });
  });
});
