/**
 * A marked ladder (FORENSIC_WATERMARK, docs/leak-tracing.md): ffmpeg writes every rendition twice,
 * `{name}/` (variant A) and `{name}_b/` (variant B), with the same cuts (ladder.ts `watermark`).
 * Before anything is encrypted or published this:
 *
 * 1. checks A and B list the same segments with the same durations (a playlist may mix them);
 * 2. rewrites each of B's segments as A's with B's keyframe (keyframeSplice.ts): a segment's other
 *    frames are predicted from its keyframe, so they carry B's mark forward, while the two streams
 *    no longer drift apart by the encoder's own differences (on grainy footage far the larger);
 * 3. decodes the smallest rendition's A and B to the detector's small gray frames and keeps them
 *    with the segments' start times in `watermark/` (`ref-a.gray`, `ref-b.gray`, `ref.json`): what
 *    `pnpm cli watermark identify` compares a copy against. No route serves that folder;
 * 4. encrypts B's segments exactly as A's (same key windows, same IVs) and moves them beside A's
 *    as `seg_NNNNNb.ts`, so the media store holds two objects per segment position;
 * 5. marks A's playlist `## forensic-ab` (a comment line): the API then writes each member's
 *    media playlist choosing A or B per position from the member's code (streaming/hls.routes.ts).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  FRAME_HEIGHT,
  FRAME_WIDTH,
  frameRateOf,
  grayFrames,
  MARKED_SEGMENT_SECONDS,
  patternExpression,
  patternShape,
  referenceRate,
} from '../forensics/index.js';
import { encryptInWindows } from './hlsPackaging.js';
import { spliceKeyframe } from './keyframeSplice.js';
import type { Rendition } from './ladder.js';

export const MARKED_PLAYLIST_TAG = '## forensic-ab';
export const WATERMARK_DIR = 'watermark';

export interface MarkedReference {
  rendition: string;
  /** Frames a second of `ref-a.gray`/`ref-b.gray` (the video's rate divided by a whole number; 5 in older references). */
  frameRate: number;
  /** The video's own frame rate (absent in older references). */
  sourceFrameRate?: number;
  width: number;
  height: number;
  /** Start time of every segment, seconds, and the video's end last. */
  segmentStarts: number[];
  /** 'variants': B is A with B's keyframe, so the detector reads the mark from their difference (forensics/detect.ts). */
  mark: 'variants';
}

/** ladder.ts's `watermark` option for one video. */
export const watermarkOption = (videoId: string) => ({
  lumaExpression: patternExpression(patternShape(videoId)),
  segmentSeconds: MARKED_SEGMENT_SECONDS,
});

/** A segment file as ffmpeg's HLS muxer names it (`seg_%05d.ts`), its position captured. */
const SEGMENT_FILE = /^seg_(\d{5})\.ts$/;

const durations = (playlist: string) => [...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((m) => Number(m[1]));

/** Steps 1–5 of the module comment, for every rendition; `key` is the video key. */
export async function finishMarkedLadder(staging: string, renditions: Rendition[], key: Buffer, signal?: AbortSignal): Promise<void> {
  await prepareMarkedVariants(staging, renditions, signal);
  for (const r of renditions) {
    const bDir = path.join(staging, `${r.name}_b`);
    await encryptInWindows(bDir, key);
    for (const file of await fsp.readdir(bDir)) {
      const m = SEGMENT_FILE.exec(file);
      if (m) await fsp.rename(path.join(bDir, file), path.join(staging, r.name, `seg_${m[1]}b.ts`));
    }
    await fsp.rm(bDir, { recursive: true, force: true });
  }
}

/** Steps 1–3 (the variants as members will be served them, unencrypted, and the detector's reference). */
export async function prepareMarkedVariants(staging: string, renditions: Rendition[], signal?: AbortSignal): Promise<MarkedReference> {
  for (const r of renditions) {
    const a = await fsp.readFile(path.join(staging, r.name, 'index.m3u8'), 'utf8');
    const b = await fsp.readFile(path.join(staging, `${r.name}_b`, 'index.m3u8'), 'utf8');
    if (durations(a).join() !== durations(b).join())
      throw new Error(
        `the marked variants of ${r.name} were cut differently (A: ${durations(a).length}, B: ${durations(b).length} segments)`,
      );
  }
  for (const r of renditions) await spliceKeyframes(path.join(staging, r.name), path.join(staging, `${r.name}_b`), signal);
  return writeMarkedReference(staging, renditions, signal);
}

/** Step 2 for one rendition: each of B's segments becomes A's with B's keyframe. */
async function spliceKeyframes(aDir: string, bDir: string, signal?: AbortSignal): Promise<void> {
  for (const file of await fsp.readdir(bDir)) {
    if (!SEGMENT_FILE.test(file)) continue;
    signal?.throwIfAborted();
    const [a, b] = await Promise.all([fsp.readFile(path.join(aDir, file)), fsp.readFile(path.join(bDir, file))]);
    await fsp.writeFile(path.join(bDir, file), spliceKeyframe(a, b));
  }
}

/**
 * Step 3: the detector's reference, from the smallest rendition's A and B: every frame at the
 * reference rate (forensics/detect.ts `referenceRate`), each a real frame of the video. Only after
 * step 2: it records that the mark is read from the variants' difference.
 */
async function writeMarkedReference(staging: string, renditions: Rendition[], signal?: AbortSignal): Promise<MarkedReference> {
  const dir = path.join(staging, WATERMARK_DIR);
  await fsp.mkdir(dir, { recursive: true });
  const smallest = renditions[renditions.length - 1] as Rendition;
  const starts = [0];
  for (const d of durations(await fsp.readFile(path.join(staging, smallest.name, 'index.m3u8'), 'utf8')))
    starts.push(Math.round(((starts[starts.length - 1] ?? 0) + d) * 1000) / 1000);
  const source = await frameRateOf(path.join(staging, smallest.name, 'index.m3u8'));
  const rate = referenceRate(source);
  for (const [variant, folder] of [
    ['a', smallest.name],
    ['b', `${smallest.name}_b`],
  ] as const) {
    const frames = await grayFrames(path.join(staging, folder, 'index.m3u8'), { rate: rate.rational, signal });
    await fsp.writeFile(path.join(dir, `ref-${variant}.gray`), frames.data);
  }
  const ref: MarkedReference = {
    rendition: smallest.name,
    frameRate: rate.rate,
    ...(source && { sourceFrameRate: source.num / source.den }),
    width: FRAME_WIDTH,
    height: FRAME_HEIGHT,
    segmentStarts: starts,
    mark: 'variants',
  };
  await fsp.writeFile(path.join(dir, 'ref.json'), JSON.stringify(ref));
  return ref;
}

/** Puts the marker into an (already encrypted) A playlist, after its first line. */
export async function markPlaylist(renditionDir: string): Promise<void> {
  const file = path.join(renditionDir, 'index.m3u8');
  const lines = (await fsp.readFile(file, 'utf8')).split('\n');
  lines.splice(1, 0, MARKED_PLAYLIST_TAG);
  await fsp.writeFile(file, lines.join('\n'));
}
