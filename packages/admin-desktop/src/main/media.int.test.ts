/** media.ts against real ffprobe/ffmpeg on videos generated here. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImage, makeTextFile, makeVideo, tmpDir } from '../../test/fixtures.js';
import { expandPaths, probe, resolveBinaries, thumbnail, thumbnailDataUrl } from './media.js';

const dir = tmpDir('desktop-media-');
let video: string;

beforeAll(() => {
  video = makeVideo(dir, 'clip one.mp4', { seconds: 4, width: 320, height: 240 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('media', () => {
  it('finds ffmpeg and ffprobe binaries', () => {
    const b = resolveBinaries();
    expect(fs.existsSync(b.ffmpeg)).toBe(true);
    expect(fs.existsSync(b.ffprobe)).toBe(true);
  });

  it('probes duration, resolution, codec and size', async () => {
    const info = await probe(video);
    expect(info.isVideo).toBe(true);
    expect(info.durationSeconds).toBeGreaterThan(3.9);
    expect(info.durationSeconds).toBeLessThan(4.2);
    expect([info.width, info.height]).toEqual([320, 240]);
    expect(info.codec).toBe('h264');
    expect(info.size).toBe(fs.statSync(video).size);
    expect(info.fileName).toBe('clip one.mp4');
  });

  it('takes a JPEG thumbnail at ~10% by default and at a chosen time', async () => {
    const t = await thumbnail(video, { outDir: path.join(dir, 'thumbs'), width: 160 });
    expect(t.atSeconds).toBeCloseTo(0.4, 1);
    const bytes = fs.readFileSync(t.path);
    expect([bytes[0], bytes[1], bytes[2]]).toEqual([0xff, 0xd8, 0xff]);
    const later = await thumbnail(video, { atSeconds: 3, outDir: path.join(dir, 'thumbs'), width: 160 });
    expect(later.atSeconds).toBe(3);
    expect(later.path).not.toBe(t.path);
    const width = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width', '-of', 'csv=p=0', later.path]).toString().trim();
    expect(width).toBe('160');
    expect(await thumbnailDataUrl(t)).toMatch(/^data:image\/jpeg;base64,\/9j\//);
  });

  it('flags files that are not videos: text, a still image, a missing file', async () => {
    const text = await probe(makeTextFile(dir, 'notes.mp4'));
    expect(text.isVideo).toBe(false);
    expect(text.reason).toMatch(/Not a video/);
    const txt = await probe(makeTextFile(dir, 'notes.txt'));
    expect(txt.isVideo).toBe(false);
    const image = await probe(makeImage(dir, 'still.jpg'));
    expect(image.isVideo).toBe(false);
    expect((await probe(path.join(dir, 'missing.mp4'))).isVideo).toBe(false);
    await expect(thumbnail(path.join(dir, 'notes.mp4'))).rejects.toThrow(/Not a video/);
  });

  it('expands a dropped folder into its files', async () => {
    const sub = path.join(dir, 'folder');
    fs.mkdirSync(path.join(sub, 'nested'), { recursive: true });
    fs.copyFileSync(video, path.join(sub, 'a.mp4'));
    fs.copyFileSync(video, path.join(sub, 'nested', 'b.mp4'));
    fs.writeFileSync(path.join(sub, '.hidden'), 'x');
    expect(await expandPaths([sub])).toEqual([path.join(sub, 'a.mp4'), path.join(sub, 'nested', 'b.mp4')]);
  });
});
