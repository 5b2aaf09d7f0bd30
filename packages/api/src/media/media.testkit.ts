/**
 * Test-only: real, tiny media files made by ffmpeg (a few seconds, 160×120) so the integration
 * tests exercise the real probe, thumbnail and streaming paths. Not used by the server.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mediaBinaries } from './ffmpeg.js';

const run = promisify(execFile);

/**
 * Made clips, shared by every test file of every worker on this machine: named by a hash of the
 * ffmpeg binary (its path, size and date) and the whole command, so the same arguments always mean
 * the same bytes. The suite asks for the same few clips in dozens of files; encoding them again in
 * each was about 50 s of CPU of a run.
 */
const CACHE = path.join(os.tmpdir(), `members-test-media-${process.getuid?.() ?? 0}`);

/**
 * Writes ffmpeg's output for `args` to `out` (unless `out` exists): a copy of the shared clip, made
 * once. The caller gets a file of its own, which it may move, cut or delete.
 */
async function ffmpegTo(out: string, args: string[]): Promise<string> {
  if (fs.existsSync(out)) return out;
  const binary = mediaBinaries().ffmpeg;
  const stat = fs.statSync(binary);
  const ext = path.extname(out);
  const key = createHash('sha256')
    .update(JSON.stringify([binary, stat.size, stat.mtimeMs, args, ext]))
    .digest('hex')
    .slice(0, 32);
  const cached = path.join(CACHE, `${key}${ext}`);
  if (!fs.existsSync(cached)) {
    fs.mkdirSync(CACHE, { recursive: true });
    // Written beside, then renamed into place: another worker never sees half a clip.
    const partial = path.join(CACHE, `.${key}-${randomBytes(6).toString('hex')}${ext}`);
    try {
      await run(binary, ['-hide_banner', '-loglevel', 'error', '-y', ...args, partial]);
      fs.renameSync(partial, cached);
    } finally {
      fs.rmSync(partial, { force: true });
    }
  }
  fs.copyFileSync(cached, out);
  return out;
}

const sources = (seconds: number) => [
  '-f',
  'lavfi',
  '-i',
  `testsrc=duration=${seconds}:size=160x120:rate=15`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:duration=${seconds}`,
];

/** H.264 (ultrafast) and AAC, as the clips below are encoded. */
const h264Aac = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'];

/** H.264/AAC MP4 (faststart) of `seconds` seconds. */
export const makeMp4 = (dir: string, seconds = 3) =>
  ffmpegTo(path.join(dir, `clip-${seconds}s.mp4`), [...sources(seconds), ...h264Aac, '-movflags', '+faststart']);

/** H.264/AAC in MPEG-TS (what an HLS segment is) of `seconds` seconds. */
export const makeMpegTs = (dir: string, seconds = 2) => ffmpegTo(path.join(dir, `clip-${seconds}s.ts`), [...sources(seconds), ...h264Aac]);

/** VP9/Opus WebM of `seconds` seconds. */
export const makeWebm = (dir: string, seconds = 2) =>
  ffmpegTo(path.join(dir, `clip-${seconds}s.webm`), [
    ...sources(seconds),
    '-c:v',
    'libvpx-vp9',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-b:v',
    '200k',
    '-c:a',
    'libopus',
    '-shortest',
  ]);

/** A 32×32 still image in the given format. */
export const makeImage = (dir: string, ext: 'png' | 'jpg' | 'webp') =>
  ffmpegTo(path.join(dir, `still.${ext}`), ['-f', 'lavfi', '-i', 'color=c=red:size=32x32', '-frames:v', '1']);

/** A text file with a video's name. */
export function makeFakeVideo(dir: string): string {
  const p = path.join(dir, 'not-a-video.mp4');
  fs.writeFileSync(p, 'This is a plain text file pretending to be an MP4.\n'.repeat(50));
  return p;
}

/** Every file below `dir` (to prove nothing was left behind). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}

/**
 * An H.264/AAC clip of a given size for the transcode suites (testsrc2 + a tone, `ultrafast`, low
 * bitrate so a 4K clip stays small).
 * @example await makeSizedClip(dir, { width: 1920, height: 1080, seconds: 10 })
 */
export const makeSizedClip = (dir: string, o: { width: number; height: number; seconds: number; kbps?: number }) =>
  ffmpegTo(path.join(dir, `clip-${o.width}x${o.height}-${o.seconds}s.mp4`), [
    '-f',
    'lavfi',
    '-i',
    `testsrc2=duration=${o.seconds}:size=${o.width}x${o.height}:rate=24`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${o.seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    `${o.kbps ?? 1500}k`,
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    '-movflags',
    '+faststart',
  ]);
