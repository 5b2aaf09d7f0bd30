import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractThumbnail, mediaBinaries, probeVideo } from './ffmpeg';
import { imageTypeOfFile } from './imageType';
import { makeFakeVideo, makeImage, makeMp4, makeMpegTs, makeWebm } from './media.testkit';

/** A JPEG's size, as ffprobe reads it. */
function jpegSize(file: string): { width: number; height: number } {
  const out = execFileSync(mediaBinaries().ffprobe, ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'json', file], {
    encoding: 'utf8',
  });
  const { width, height } = JSON.parse(out).streams[0];
  return { width, height };
}

/** The colour of an image's centre pixel, decoded by ffmpeg. */
function centrePixel(file: string): { r: number; g: number; b: number } {
  const { width, height } = jpegSize(file);
  const raw = execFileSync(mediaBinaries().ffmpeg, [
    ...['-v', 'error', '-i', file, '-vf', `format=rgb24,crop=2:2:${Math.floor(width / 2)}:${Math.floor(height / 2)}`],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
  ]);
  return { r: raw[0] ?? -1, g: raw[1] ?? -1, b: raw[2] ?? -1 };
}

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

  // An uploaded "video" that is a playlist makes ffmpeg's HLS demuxer fetch what it names: any file
  // of the server's disk when probed as a file, any address of the server's network when probed
  // through a URL (a finished tus upload is probed through a presigned one). Only containers a
  // video is uploaded in are demuxed.
  it('refuses a playlist named .mp4 without fetching what it names, on disk or over HTTP', async () => {
    const segment = await makeMpegTs(dir, 2);
    const onDisk = path.join(dir, 'playlist-on-disk.mp4');
    fs.writeFileSync(onDisk, `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${segment}\n#EXT-X-ENDLIST\n`);
    expect((await probeVideo(onDisk)).ok).toBe(false);

    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/upload') {
        res.end(`#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n/internal/segment.ts\n#EXT-X-ENDLIST\n`);
      } else fs.createReadStream(segment).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
      expect((await probeVideo(url)).ok).toBe(false);
      await expect(extractThumbnail(url, 0.5, path.join(dir, 'never.jpg'))).rejects.toThrow();
      expect(asked.every((u) => u === '/upload')).toBe(true);
    } finally {
      server.close();
    }
  });

  it('extracts a JPEG thumbnail', async () => {
    const out = path.join(dir, 'thumb.jpg');
    await extractThumbnail(await makeMp4(dir, 3), 0.3, out);
    expect(await imageTypeOfFile(out)).toEqual({ mimeType: 'image/jpeg', extension: 'jpg' });
    expect(jpegSize(out)).toEqual({ width: 160, height: 120 }); // a small source keeps its size
  });

  it('takes the frame at the asked time, at most 640 px wide', async () => {
    // Two seconds of 1280×720: red for the first second, blue after it.
    const wide = path.join(dir, 'wide.mp4');
    execFileSync(mediaBinaries().ffmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:size=1280x720:rate=10:duration=1'],
      ...['-f', 'lavfi', '-i', 'color=c=blue:size=1280x720:rate=10:duration=1'],
      ...['-filter_complex', '[0:v][1:v]concat=n=2:v=1[v]', '-map', '[v]', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', wide],
    ]);
    const early = path.join(dir, 'early.jpg');
    const late = path.join(dir, 'late.jpg');
    await extractThumbnail(wide, 0.2, early);
    await extractThumbnail(wide, 1.5, late);
    expect(jpegSize(early)).toEqual({ width: 640, height: 360 });
    expect(centrePixel(early)).toMatchObject({ r: expect.toSatisfy((r: number) => r > 200), b: expect.toSatisfy((b: number) => b < 60) });
    expect(centrePixel(late)).toMatchObject({ r: expect.toSatisfy((r: number) => r < 60), b: expect.toSatisfy((b: number) => b > 200) });
  });

  it('recognises real images by their bytes', async () => {
    expect((await imageTypeOfFile(await makeImage(dir, 'png')))?.mimeType).toBe('image/png');
    expect((await imageTypeOfFile(await makeImage(dir, 'webp')))?.mimeType).toBe('image/webp');
    expect(await imageTypeOfFile(makeFakeVideo(dir))).toBeNull();
  });
});
