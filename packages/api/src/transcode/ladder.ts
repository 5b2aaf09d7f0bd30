/**
 * The HLS ladder, pure: which renditions a source gets and the one ffmpeg command that makes them
 * all (decoded once, split, scaled, encoded H.264/AAC, cut into AES-128-encrypted MPEG-TS
 * segments of ~4 s), plus the seek-preview sprite sheets from the same decode.
 *
 * Renditions are named by height. The standard rungs are 1080p, 720p, 480p and 360p, never
 * upscaled; a source taller than 1080 lines adds its own resolution (capped at 2160) as one more
 * rendition, which only plans entitled above 1080p see (streaming/entitlement.ts).
 */
import { UPLOADED_VIDEO_INPUT } from '../media/index.js';

export interface Rendition {
  /** "1080p": also the folder name under `hls/`. */
  name: string;
  width: number;
  height: number;
  /** Target video bitrate, kbit/s. */
  videoKbps: number;
  audioKbps: number;
}

/** Standard rungs: height → video kbit/s (Apple's HLS authoring guide's neighbourhood, H.264). */
export const STANDARD_RUNGS: readonly { height: number; videoKbps: number }[] = [
  { height: 1080, videoKbps: 5000 },
  { height: 720, videoKbps: 2800 },
  { height: 480, videoKbps: 1400 },
  { height: 360, videoKbps: 800 },
];
export const SOURCE_MAX_HEIGHT = 2160;
const AUDIO_KBPS = 128;
/** Segment length, seconds; keyframes are forced every SEGMENT_SECONDS / 2 so every cut is exact. */
export const SEGMENT_SECONDS = 4;

/** Video kbit/s for a source rendition above 1080p: ~0.11 bit per pixel at 30 fps, like the rungs. */
const sourceKbps = (width: number, height: number) => Math.min(16_000, Math.round((width * height * 30 * 0.1) / 1000 / 100) * 100);

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/**
 * The renditions of a source, tallest first.
 * @example planLadder({ width: 3840, height: 2160 }).map((r) => r.name) // ['2160p', '1080p', '720p', '480p', '360p']
 */
export function planLadder(source: { width: number; height: number }): Rendition[] {
  const { width, height } = source;
  if (!(width > 0 && height > 0)) return [];
  const aspect = width / height;
  const at = (h: number, videoKbps: number): Rendition => ({
    name: `${h}p`,
    width: even(h * aspect),
    height: h,
    videoKbps,
    audioKbps: AUDIO_KBPS,
  });
  const out: Rendition[] = [];
  if (height > 1080) {
    const h = even(Math.min(height, SOURCE_MAX_HEIGHT));
    out.push(at(h, sourceKbps(even(h * aspect), h)));
  }
  for (const rung of STANDARD_RUNGS) if (rung.height <= height) out.push(at(rung.height, rung.videoKbps));
  // A source smaller than the lowest rung keeps its own size (one rendition, never upscaled).
  if (out.length === 0) {
    const h = even(height);
    out.push(at(h, Math.max(200, Math.round((width * height * 30 * 0.1) / 1000))));
  }
  return out;
}

/** One preview thumbnail every this many seconds (≥ 1; about 100–360 per video). */
export function previewInterval(durationSeconds: number): number {
  return Math.max(1, Math.min(10, Math.ceil(durationSeconds / 100)));
}

export const PREVIEW = { width: 160, height: 90, columns: 10, rows: 10 } as const;

export interface LadderJob {
  input: string;
  /** Output folder (the video's `hls` staging folder). */
  outDir: string;
  /**
   * ffmpeg's key-info file (key URI, key file path, IV), to have ffmpeg encrypt with one key. The
   * transcoder leaves it out and encrypts per key window afterwards (hlsPackaging.ts).
   */
  keyInfoFile?: string;
  renditions: Rendition[];
  hasAudio: boolean;
  durationSeconds: number;
  preset: string;
  /**
   * Forensic A/B marking (FORENSIC_WATERMARK, forensics/pattern.ts): the pattern as a `geq` luma
   * expression of X, Y, W, H (evaluated once a second: a 1 fps source inside the graph); every
   * rendition is written twice, `{name}` (A: + pattern) and `{name}_b` (B: − pattern), in segments
   * of `segmentSeconds` cut at the same keyframes.
   */
  watermark?: { lumaExpression: string; segmentSeconds: number };
}

/**
 * ffmpeg's arguments for the whole ladder plus the preview sprites.
 * Outputs: `{outDir}/{name}/index.m3u8`, `{name}/seg_00000.ts`…, `master.m3u8`,
 * `sprites/sprite-001.jpg`…
 */
export function ladderArgs(job: LadderJob): string[] {
  const n = job.renditions.length;
  const interval = previewInterval(job.durationSeconds);
  const splits = job.renditions.map((_, i) => `[s${i}]`).join('');
  const mark = job.watermark;
  const segmentSeconds = mark?.segmentSeconds ?? SEGMENT_SECONDS;
  const scales = job.renditions.map((r, i) =>
    mark
      ? // Split after scaling: A and B are the same frames but for the pattern, added or taken away.
        `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1,format=yuv420p,split=2[ma${i}][mb${i}];` +
        `color=c=black:s=${r.width}x${r.height}:r=1,format=yuv420p,geq=lum='${mark.lumaExpression}':cb=128:cr=128,split=2[pa${i}][pb${i}];` +
        `[ma${i}][pa${i}]blend=all_mode=grainmerge:shortest=1[v${i}];[mb${i}][pb${i}]blend=all_mode=grainextract:shortest=1[w${i}]`
      : `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`,
  );
  const sprite = `[sp]fps=1/${interval},scale=${PREVIEW.width}:${PREVIEW.height}:force_original_aspect_ratio=decrease,pad=${PREVIEW.width}:${PREVIEW.height}:(ow-iw)/2:(oh-ih)/2,tile=${PREVIEW.columns}x${PREVIEW.rows}[sprites]`;
  const filter = [`[0:v:0]split=${n + 1}${splits}[sp]`, ...scales, sprite].join(';');
  // An original read from the object store (a presigned URL): a dropped connection is resumed from
  // where it broke (a Range request) for a few seconds before ffmpeg gives up.
  const reconnect = /^https?:/.test(job.input) ? ['-reconnect', '1', '-reconnect_delay_max', '5'] : [];
  const args = [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    ...reconnect,
    ...UPLOADED_VIDEO_INPUT,
    '-i',
    job.input,
    '-filter_complex',
    filter,
  ];
  const outputs = mark
    ? [...job.renditions.map((_, i) => `[v${i}]`), ...job.renditions.map((_, i) => `[w${i}]`)]
    : job.renditions.map((_, i) => `[v${i}]`);
  for (const label of outputs) {
    args.push('-map', label);
    if (job.hasAudio) args.push('-map', '0:a:0');
  }
  args.push(
    '-c:v',
    'libx264',
    '-preset',
    job.preset,
    '-pix_fmt',
    'yuv420p',
    '-force_key_frames',
    `expr:gte(t,n_forced*${mark ? segmentSeconds : SEGMENT_SECONDS / 2})`,
    '-sc_threshold',
    '0',
  );
  (mark ? [...job.renditions, ...job.renditions] : job.renditions).forEach((r, i) => {
    args.push(
      `-b:v:${i}`,
      `${r.videoKbps}k`,
      `-maxrate:v:${i}`,
      `${Math.round(r.videoKbps * 1.07)}k`,
      `-bufsize:v:${i}`,
      `${r.videoKbps * 2}k`,
    );
  });
  if (job.hasAudio) args.push('-c:a', 'aac', '-b:a', `${job.renditions[0]?.audioKbps ?? AUDIO_KBPS}k`, '-ac', '2');
  const names = mark
    ? [...job.renditions.map((r) => r.name), ...job.renditions.map((r) => `${r.name}_b`)]
    : job.renditions.map((r) => r.name);
  const streamMap = names.map((name, i) => `v:${i}${job.hasAudio ? `,a:${i}` : ''},name:${name}`).join(' ');
  args.push(
    '-f',
    'hls',
    '-hls_time',
    String(segmentSeconds),
    '-hls_playlist_type',
    'vod',
    '-hls_segment_type',
    'mpegts',
    ...(job.keyInfoFile ? ['-hls_key_info_file', job.keyInfoFile] : []),
    '-hls_segment_filename',
    `${job.outDir}/%v/seg_%05d.ts`,
    '-master_pl_name',
    'master.m3u8',
    '-var_stream_map',
    streamMap,
    `${job.outDir}/%v/index.m3u8`,
    '-map',
    '[sprites]',
    '-q:v',
    '5',
    '-f',
    'image2',
    '-start_number',
    '1',
    `${job.outDir}/sprites/sprite-%03d.jpg`,
    '-progress',
    'pipe:1',
    '-stats_period',
    '1',
  );
  return args;
}

/** Peak bandwidth for the master playlist's BANDWIDTH, bit/s (video maxrate + audio, + ~10 % TS overhead). */
export const renditionBandwidth = (r: Rendition, hasAudio: boolean) =>
  Math.round((r.videoKbps * 1.07 + (hasAudio ? r.audioKbps : 0)) * 1000 * 1.1);
