/**
 * A corpus of realistic sources and leaks for leak tracing (issue 41), all made by ffmpeg here,
 * nothing downloaded: the tests (at 360p or less) and `bench/leak-corpus.ts` (at 720p) build the
 * same kinds of footage the clean test card never showed the detector — temporal grain of several
 * strengths, dark low-contrast scenes, camera pans, zooms and shake, scene cuts and fades every few
 * seconds, fine texture, and a mix — then mark them with the server's own ladder command
 * (transcode/ladder.ts) and reference step (transcode/watermarkVariants.ts), build a member's stream
 * from their code, and leak it the ways copies get made: cut at any offset, cropped, scaled down,
 * re-encoded at CRF 28–32, re-graded, captured at 24 fps, blurred.
 *
 * A scene is drawn small by one of ffmpeg's generators and scaled up (a smooth picture with edges,
 * like footage, cheap to render), then degraded at full size.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { mediaBinaries } from '../media/ffmpeg.js';
import { ladderArgs, planLadder, type Rendition } from '../transcode/ladder.js';
import { prepareMarkedVariants } from '../transcode/watermarkVariants.js';
import { codeBits } from './code.js';
import { MARKED_SEGMENT_SECONDS, patternExpression, patternShape } from './pattern.js';

const run = promisify(execFile);

export async function ffmpeg(args: string[]): Promise<void> {
  await run(mediaBinaries().ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
    timeout: 900_000,
    maxBuffer: 1 << 24,
  });
}

export const SOURCE_KINDS = ['grain-light', 'grain-heavy', 'dark-motion', 'pan-zoom', 'cuts-fades', 'texture', 'mix'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const SOURCE_TEXT: Record<SourceKind, string> = {
  'grain-light': 'slow zoom into detail, light grain and blotchy sensor noise',
  'grain-heavy': 'drifting gradients over a test card, heavy grain and blotchy noise (low light)',
  'dark-motion': 'dark, low contrast (a quarter of the range), panning and shaking, grain',
  'pan-zoom': 'handheld pan and zoom over a detailed still, shake',
  'cuts-fades': 'a hard cut every 4 s between three scenes, a fade from black every 8 s',
  texture: 'fine static texture (film-like) over a moving card, moving cells',
  mix: 'pan and shake, cuts and fades, dark, grain',
};

interface Size {
  width: number;
  height: number;
  seconds: number;
}

/** A scene drawn at a fraction of the size and scaled up bicubically. */
const small = (gen: string, w: number, h: number, size: Size) =>
  `${gen}${gen.includes('=') ? ':' : '='}size=${Math.round(w)}x${Math.round(h)}:rate=30,scale=${size.width}:${size.height}:flags=bicubic,format=yuv420p`;

/** The ffmpeg lavfi graph (one video output, `[out]`) of a source kind. */
export function sourceGraph(kind: SourceKind, size: Size): string {
  const { width: W, height: H, seconds: D } = size;
  const w = W / 4;
  const h = H / 4;
  const mandel = (s: Size) => small('mandelbrot=maxiter=200:end_scale=0.3:end_pts=400', w, h, s);
  const card = (s: Size) => small('testsrc2', w / 2, h / 2, s);
  const grads = (s: Size) => small('gradients=n=5:speed=0.015:seed=7', w, h, s);
  // A still twice the frame's size, panned, zoomed and shaken by crop/scale expressions per frame.
  const big = { width: W * 2, height: H * 2, seconds: D };
  const pan =
    `${small('mandelbrot=maxiter=300:start_scale=2.2:end_pts=1', W / 2, H / 2, big)},trim=end_frame=1,loop=loop=-1:size=1,setpts=N/30/TB,` +
    `scale=w='${W * 2}*(1.15+0.15*sin(t/6))':h=-2:eval=frame,` +
    `crop=${W}:${H}:x='(iw-${W})*(0.5+0.45*sin(t/9))+6*sin(t*5.3)':y='(ih-${H})*(0.5+0.4*sin(t/7))+5*sin(t*4.1)'`;
  const cutBetween = (scenes: string[]) => {
    const inputs = scenes.map((s, i) => `${s}[s${i}]`).join(';');
    return `${inputs};[s0][s1]overlay=enable='between(mod(t,12),4,8)'[o1];[o1][s2]overlay=enable='gte(mod(t,12),8)'`;
  };
  const fades = `eq=brightness='-0.6*max(0,1-mod(t,8)/0.8)':eval=frame`;
  // Sensor noise as a camera in low light leaves it: fine grain per pixel, and blotches a few
  // pixels wide (noise drawn at a sixteenth of the size and scaled up), new in every frame. The
  // blotches are what survive averaging down to the detector's 64×36.
  const grain = (alls: number, blotches = alls) =>
    `noise=alls=${alls}:allf=t[fine];color=c=gray:size=${Math.round(W / 16)}x${Math.round(H / 16)}:rate=30,format=yuv420p,` +
    `noise=alls=${blotches}:allf=t,scale=${W}:${H}:flags=bicubic[blotch];[fine][blotch]blend=all_mode=grainmerge`;
  const graph: Record<SourceKind, string> = {
    'grain-light': `${mandel(size)},${grain(6, 3)}`,
    'grain-heavy': `${grads(size)}[g];${card(size)}[c];[g][c]blend=all_mode=overlay:all_opacity=0.6,${grain(18, 8)}`,
    'dark-motion': `${pan},eq=contrast=0.35:brightness=-0.28,${grain(10, 6)}`,
    'pan-zoom': pan,
    'cuts-fades': `${cutBetween([mandel(size), card(size), grads(size)])},${fades}`,
    texture: `${card(size)},noise=alls=28:allf=p[c];${small('life=mold=10:ratio=0.15:seed=7:life_color=#c0c0c0:death_color=#404040', w, h, size)}[l];[c][l]blend=all_mode=average`,
    mix: `${cutBetween([pan, mandel(size), grads(size)])},${fades},eq=contrast=0.6:brightness=-0.15,${grain(10, 6)}`,
  };
  return `${graph[kind]},trim=duration=${D},format=yuv420p[out]`;
}

/** Renders a source to an H.264 file at CRF 16 (what a creator uploads), with a tone. */
export async function makeSource(kind: SourceKind, file: string, size: Size): Promise<string> {
  if (fs.existsSync(file)) return file;
  await ffmpeg([
    ...['-f', 'lavfi', '-i', `sine=frequency=330:duration=${size.seconds}`],
    ...['-filter_complex', sourceGraph(kind, size), '-map', '[out]', '-map', '0:a'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '16', '-c:a', 'aac', '-shortest', `${file}.tmp.mp4`],
  ]);
  fs.renameSync(`${file}.tmp.mp4`, file);
  return file;
}

/**
 * The server's ffmpeg arguments (transcode/ladder.ts) for a run outside the server: without its
 * leading logging options (`ffmpeg` here adds its own) and its progress reports on stdout.
 */
export const withoutReporting = (args: string[]) =>
  args
    .slice(5)
    .filter((a, i, all) => a !== '-progress' && all[i - 1] !== '-progress' && a !== '-stats_period' && all[i - 1] !== '-stats_period');

export interface MarkedLadder {
  dir: string;
  videoId: string;
  renditions: Rendition[];
  /** Segment starts, seconds (the video's end last). */
  segmentStarts: number[];
}

/**
 * The server's marked ladder of a source, unencrypted (the bench and tests build members' streams
 * from the files), with the detector's reference written by the server's own step.
 */
export async function markLadder(
  source: string,
  dir: string,
  videoId: string,
  opts: { width: number; height: number; seconds: number; preset?: string; unmarked?: boolean },
): Promise<MarkedLadder> {
  const renditions = planLadder({ width: opts.width, height: opts.height });
  for (const r of renditions) {
    fs.mkdirSync(path.join(dir, r.name), { recursive: true });
    fs.mkdirSync(path.join(dir, `${r.name}_b`), { recursive: true });
  }
  fs.mkdirSync(path.join(dir, 'sprites'), { recursive: true });
  const args = ladderArgs({
    input: source,
    outDir: dir,
    renditions,
    hasAudio: true,
    durationSeconds: opts.seconds,
    preset: opts.preset ?? 'veryfast',
    // `unmarked`: the same command with a pattern of zero (A = B): what the mark is compared against.
    watermark: { lumaExpression: opts.unmarked ? '128' : patternExpression(patternShape(videoId)), segmentSeconds: MARKED_SEGMENT_SECONDS },
  });
  await ffmpeg(withoutReporting(args));
  const ref = await prepareMarkedVariants(dir, renditions);
  return { dir, videoId, renditions, segmentStarts: ref.segmentStarts };
}

/** A member's stream of one rendition: a playlist choosing A or B per segment from their code. */
export function memberPlaylist(ladder: MarkedLadder, rendition: string, secret: Buffer, out: string): string {
  const folder = path.join(ladder.dir, rendition);
  const text = fs.readFileSync(path.join(folder, 'index.m3u8'), 'utf8');
  const bits = codeBits(secret, ladder.videoId, 0, ladder.segmentStarts.length);
  let k = 0;
  fs.writeFileSync(
    out,
    text.replace(/^seg_(\d{5})\.ts$/gm, (line) => path.join(bits[k++] ? `${folder}_b` : folder, line)),
  );
  return out;
}

/** Saves a member's stream as one file (what `ffmpeg -i playlist -c copy` gives a member). */
export async function saveStream(playlist: string, out: string): Promise<string> {
  await ffmpeg(['-allowed_extensions', 'ALL', '-i', playlist, '-map', '0:v', '-c', 'copy', out]);
  return out;
}

export const LEAK_KINDS = ['cut-scale-crf28', 'crop-scale', 'small-crf32', 'regrade', 'capture-24fps', 'blur'] as const;
export type LeakKind = (typeof LEAK_KINDS)[number];

export interface Leak {
  text: string;
  /** Where the copy starts in the member's stream, seconds: never a whole second. */
  start: number;
  filter: string;
  crf: number;
}

export const LEAKS: Record<LeakKind, Leak> = {
  'cut-scale-crf28': { text: 'cut at 7.3 s, 640×360, CRF 28', start: 7.3, filter: 'scale=640:360', crf: 28 },
  'crop-scale': {
    text: 'cut at 11.45 s, 4 % cropped, 640×360, CRF 28',
    start: 11.45,
    filter: 'crop=iw*0.96:ih*0.96:iw*0.015:ih*0.025,scale=640:360',
    crf: 28,
  },
  'small-crf32': { text: 'cut at 3.62 s, 426×240, CRF 32', start: 3.62, filter: 'scale=426:240', crf: 32 },
  regrade: {
    text: 'cut at 5.17 s, brighter, more contrast, gamma 1.3, 640×360, CRF 28',
    start: 5.17,
    filter: 'eq=brightness=0.04:contrast=1.15:gamma=1.3,scale=640:360',
    crf: 28,
  },
  'capture-24fps': {
    text: 'cut at 9.08 s, 24 fps (a screen capture), 640×360, CRF 28',
    start: 9.08,
    filter: 'fps=24,scale=640:360',
    crf: 28,
  },
  blur: { text: 'cut at 6.51 s, mild blur (σ 1.2), 640×360, CRF 30', start: 6.51, filter: 'gblur=sigma=1.2,scale=640:360', crf: 30 },
};

/** A leaked copy of `input`: `seconds` long from the kind's start, re-encoded as the kind (or a leak of the caller's own) says. */
export async function leakCopy(input: string, out: string, kind: LeakKind | Leak, seconds: number, startShift = 0): Promise<string> {
  const leak = typeof kind === 'string' ? LEAKS[kind] : kind;
  await ffmpeg([
    // -ss after -i: decoded from the start and cut at that very frame (before -i, ffmpeg lands an
    // MPEG-TS input on the next whole-second keyframe, and every copy would start on a segment's edge).
    ...['-i', input, '-ss', String(leak.start + startShift), '-t', String(seconds)],
    ...['-vf', leak.filter, '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', String(leak.crf), '-an', out],
  ]);
  return out;
}

/** PSNR and SSIM (all planes, average) between two videos, by ffmpeg; `b` is scaled to `a`'s size first. */
export async function psnrSsim(a: string, b: string): Promise<{ psnr: number; ssim: number }> {
  const { stderr } = await run(
    mediaBinaries().ffmpeg,
    [
      '-hide_banner',
      '-nostdin',
      '-i',
      a,
      '-i',
      b,
      '-lavfi',
      '[1:v][0:v]scale2ref=flags=bicubic[s][r];[r]split[a1][a2];[s]split[b1][b2];[a1][b1]psnr;[a2][b2]ssim',
      '-f',
      'null',
      '-',
    ],
    { timeout: 600_000, maxBuffer: 1 << 24 },
  );
  return {
    psnr: Number(/PSNR .*average:([\d.]+|inf)/.exec(stderr)?.[1]),
    ssim: Number(/SSIM .*All:([\d.]+)/.exec(stderr)?.[1]),
  };
}
