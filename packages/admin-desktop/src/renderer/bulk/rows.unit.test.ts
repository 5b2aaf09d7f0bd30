import { localInputToIso } from '@members/ui/format';
import { describe, expect, it } from 'vitest';
import { type MediaInfo, uploadMetadataSchema } from '../../shared/ipc.js';
import { applyToSelected, type BulkRow, formatBytes, isSendable, metadataOf, newRow, splitTags, titleFromFileName } from './rows.js';

const info = (over: Partial<MediaInfo> = {}): MediaInfo => ({
  path: '/v/a.mp4',
  fileName: 'a.mp4',
  size: 10,
  isVideo: true,
  durationSeconds: 154.4,
  width: 1920,
  height: 1080,
  codec: 'h264',
  ...over,
});

describe('bulk upload rows', () => {
  it('defaults the title from the file name', () => {
    expect(titleFromFileName('golden_hour-final.v2.mp4')).toBe('Golden hour final v2');
    expect(titleFromFileName('clip.mov')).toBe('Clip');
    expect(newRow('/videos/rooftop nights.mp4')).toMatchObject({
      fileName: 'rooftop nights.mp4',
      title: 'Rooftop nights',
      accessLevel: 'premium',
    });
    expect(newRow('C:\\videos\\x_y.avi').fileName).toBe('x_y.avi');
  });

  it('applies the given fields to the selected rows only', () => {
    const rows: BulkRow[] = [
      { ...newRow('/a.mp4'), selected: true },
      newRow('/b.mp4'),
      { ...newRow('/c.mp4'), selected: true, tags: 'keep' },
    ];
    const next = applyToSelected(rows, { model: 'Luna Hart', accessLevel: 'vip', tags: '', description: '' });
    expect(next.map((r) => [r.model, r.accessLevel, r.tags])).toEqual([
      ['Luna Hart', 'vip', ''],
      ['', 'premium', ''],
      ['Luna Hart', 'vip', 'keep'],
    ]);
  });

  it('sends only videos with a title, and builds the metadata', () => {
    const video: BulkRow = { ...newRow('/a.mp4'), probe: 'done', info: info(), model: 'Other', tags: 'a, b ,A,', description: ' d ' };
    expect(isSendable(video)).toBe(true);
    expect(isSendable({ ...video, info: info({ isVideo: false }) })).toBe(false);
    expect(isSendable({ ...video, probe: 'probing' })).toBe(false);
    expect(isSendable({ ...video, title: ' ' })).toBe(false);
    expect(metadataOf(video)).toEqual({
      title: 'A',
      accessLevel: 'premium',
      model: 'Other',
      description: 'd',
      tags: ['a', 'b'],
      durationText: '2:34',
    });
    expect(splitTags('')).toEqual([]);
  });

  it('sets the release fields on the selected rows, clears them with an empty value, and sends them', () => {
    const rows: BulkRow[] = [{ ...newRow('/a.mp4'), selected: true, probe: 'done', info: info() }, newRow('/b.mp4')];
    const scheduled = applyToSelected(rows, { exclusiveTo: 'annual', publishAt: '2026-12-03T10:00' });
    expect(scheduled.map((r) => [r.exclusiveTo, r.publishAt])).toEqual([
      ['annual', '2026-12-03T10:00'],
      ['', ''],
    ]);
    // Left alone when not given, cleared when given empty.
    expect(applyToSelected(scheduled, { model: 'Luna Hart' })[0]).toMatchObject({ exclusiveTo: 'annual', publishAt: '2026-12-03T10:00' });
    expect(applyToSelected(scheduled, { exclusiveTo: '', publishAt: '' })[0]).toMatchObject({ exclusiveTo: '', publishAt: '' });

    const meta = metadataOf(scheduled[0] as BulkRow);
    expect(meta).toMatchObject({ exclusiveTo: 'annual', publishAt: localInputToIso('2026-12-03T10:00') });
    expect(new Date(meta.publishAt as string).getTime()).toBe(new Date(2026, 11, 3, 10, 0).getTime());
    // The IPC boundary accepts what the renderer builds.
    expect(uploadMetadataSchema.parse(meta)).toEqual(meta);
    expect(metadataOf(rows[1] as BulkRow)).not.toHaveProperty('publishAt');
    expect(uploadMetadataSchema.safeParse({ title: 'A', publishAt: '2026-12-03T10:00' }).success).toBe(false);
  });

  it('formats bytes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });
});
