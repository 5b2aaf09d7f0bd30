import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractThumbnail, mediaBinaries, probeVideo } from './ffmpeg';
import { imageTypeOfFile } from './imageType';
import { makeFakeVideo, makeImage, makeMp4, makeWebm } from './media.testkit';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'media-test-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ffmpeg/ffprobe', () => {
  it('finds both binaries', () => {
    const b = mediaBinaries();
    expect(fs.existsSync(b.ffmpeg) && fs.existsSync(b.ffprobe)).toBe(true);
  });

  it('probes an H.264/AAC MP4: duration, size, codecs, MIME type', async () => {
    const r = await probeVideo(await makeMp4(dir, 3));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.probe).toMatchObject({ width: 160, height: 120, codec: 'h264', audioCodec: 'aac', mimeType: 'video/mp4', extension: 'mp4' });
    expect(r.probe.durationSeconds).toBeGreaterThan(2.9);
    expect(r.probe.durationSeconds).toBeLessThan(3.2);
  });

  it('probes a VP9/Opus WebM', async () => {
    const r = await probeVideo(await makeWebm(dir, 2));
    expect(r).toMatchObject({ ok: true, probe: { codec: 'vp9', audioCodec: 'opus', mimeType: 'video/webm', extension: 'webm' } });
  });

  it('refuses a text file named .mp4 and a still image', async () => {
    expect(await probeVideo(makeFakeVideo(dir))).toEqual({
      ok: false,
      error: 'The uploaded file is not a playable video (no video stream found)',
    });
    expect((await probeVideo(await makeImage(dir, 'png'))).ok).toBe(false);
    expect((await probeVideo(await makeImage(dir, 'jpg'))).ok).toBe(false);
  });

  it('extracts a JPEG thumbnail', async () => {
    const out = path.join(dir, 'thumb.jpg');
    await extractThumbnail(await makeMp4(dir, 3), 0.3, out);
    expect(await imageTypeOfFile(out)).toEqual({ mimeType: 'image/jpeg', extension: 'jpg' });
  });

  it('recognises real images by their bytes', async () => {
    expect((await imageTypeOfFile(await makeImage(dir, 'png')))?.mimeType).toBe('image/png');
    expect((await imageTypeOfFile(await makeImage(dir, 'webp')))?.mimeType).toBe('image/webp');
    expect(await imageTypeOfFile(makeFakeVideo(dir))).toBeNull();
  });
});
