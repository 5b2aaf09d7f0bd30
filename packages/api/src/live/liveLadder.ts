/**
 * The live ladder (pure, issue 43): which renditions a show gets (the standard rungs and 240p, never
 * above the source the encoder sends, at most LIVE_MAX_RENDITIONS), the ffmpeg arguments that turn
 * the RTMP stream into plain 2 s HLS segments per rendition on the ingest host's disk (and, with
 * `saveReplay`, a copy of the source as it came, for the replay), and the playlists the API serves:
 * a sliding window of the last LIVE_WINDOW_SEGMENTS encrypted segments, one `#EXT-X-KEY` per key
 * window as the video on demand has (transcode/hlsPackaging.ts), `#EXT-X-ENDLIST` once the show ended.
 */
import type { LiveRenditionInfo } from './show.decider.js';

/** Segment length, seconds: the issue's 2 s (a keyframe every 2 s, which OBS is told to send too). */
export const LIVE_SEGMENT_SECONDS = 2;
/** Segments a live playlist lists: 12 s, room for a player three segments behind the edge and a late fetch. */
export const LIVE_WINDOW_SEGMENTS = 6;
/** Renditions per show at most (the CPU of the ingest host; docs/live.md). */
export const LIVE_MAX_RENDITIONS = 3;

const LIVE_RUNGS: readonly { height: number; videoKbps: number }[] = [
  { height: 1080, videoKbps: 4500 },
  { height: 720, videoKbps: 2500 },
  { height: 480, videoKbps: 1200 },
  { height: 360, videoKbps: 700 },
  { height: 240, videoKbps: 350 },
];
const AUDIO_KBPS = 128;

export interface LiveRendition extends LiveRenditionInfo {
  videoKbps: number;
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/**
 * The ladder for a source of this size: the rungs at or below it, tallest first.
 * @example planLiveLadder({ width: 640, height: 360 }).map((r) => r.name) // ['360p', '240p']
 */
export function planLiveLadder(source: { width: number; height: number }, hasAudio: boolean, max = LIVE_MAX_RENDITIONS): LiveRendition[] {
  const { width, height } = source;
  if (!(width > 0 && height > 0)) return [];
  const aspect = width / height;
  const rungs = LIVE_RUNGS.filter((r) => r.height <= height).slice(0, max);
  // A source below the lowest rung keeps its own size (never upscaled).
  const chosen = rungs.length ? rungs : [{ height: even(height), videoKbps: 250 }];
  return chosen.map((r) => ({
    name: `${r.height}p`,
    width: even(r.height * aspect),
    height: r.height,
    videoKbps: r.videoKbps,
    bandwidth: Math.round((r.videoKbps * 1.07 + (hasAudio ? AUDIO_KBPS : 0)) * 1000 * 1.1),
  }));
}

export interface LiveJob {
  /** The RTMP stream to read (the embedded ingest's loopback URL). */
  input: string;
  /** The show's work folder on the ingest host: `{rendition}/index.m3u8` and `seg_NNNNN.ts`, plain. */
  workDir: string;
  renditions: readonly LiveRendition[];
  hasAudio: boolean;
  /** x264's preset (TRANSCODE_PRESET; `ultrafast` in the suites). */
  preset: string;
  /** With `saveReplay`: the source copied as it came (no encode), for the replay's normal transcode. */
  recordTo?: string | undefined;
}

export function liveLadderArgs(job: LiveJob): string[] {
  const n = job.renditions.length;
  const splits = job.renditions.map((_, i) => `[s${i}]`).join('');
  const scales = job.renditions.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1[v${i}]`);
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
    ...['-i', job.input],
    ...['-filter_complex', [`[0:v:0]split=${n}${splits}`, ...scales].join(';')],
  ];
  job.renditions.forEach((_, i) => {
    args.push('-map', `[v${i}]`);
    if (job.hasAudio) args.push('-map', '0:a:0');
  });
  args.push(
    ...['-c:v', 'libx264', '-preset', job.preset, '-tune', 'zerolatency', '-pix_fmt', 'yuv420p'],
    ...['-force_key_frames', `expr:gte(t,n_forced*${LIVE_SEGMENT_SECONDS})`, '-sc_threshold', '0'],
  );
  job.renditions.forEach((r, i) => {
    args.push(
      `-b:v:${i}`,
      `${r.videoKbps}k`,
      `-maxrate:v:${i}`,
      `${Math.round(r.videoKbps * 1.07)}k`,
      `-bufsize:v:${i}`,
      `${r.videoKbps}k`,
    );
  });
  if (job.hasAudio) args.push('-c:a', 'aac', '-b:a', `${AUDIO_KBPS}k`, '-ac', '2');
  const streamMap = job.renditions.map((r, i) => `v:${i}${job.hasAudio ? `,a:${i}` : ''},name:${r.name}`).join(' ');
  args.push(
    ...['-f', 'hls', '-hls_time', String(LIVE_SEGMENT_SECONDS), '-hls_list_size', '0', '-hls_segment_type', 'mpegts'],
    ...['-hls_flags', 'independent_segments+temp_file'],
    ...['-hls_segment_filename', `${job.workDir}/%v/seg_%05d.ts`, '-var_stream_map', streamMap, `${job.workDir}/%v/index.m3u8`],
  );
  if (job.recordTo) args.push('-map', '0:v:0', ...(job.hasAudio ? ['-map', '0:a:0'] : []), '-c', 'copy', '-f', 'matroska', job.recordTo);
  return args;
}

/** The finished segments of ffmpeg's plain playlist (it lists a segment once it is closed), in order, with their durations. */
export function plainSegments(playlist: string): { file: string; duration: number }[] {
  const out: { file: string; duration: number }[] = [];
  let duration = LIVE_SEGMENT_SECONDS;
  for (const line of playlist.split(/\r?\n/)) {
    const inf = /^#EXTINF:([\d.]+)/.exec(line);
    if (inf) duration = Number(inf[1]);
    else if (line && !line.startsWith('#')) out.push({ file: line.trim(), duration });
  }
  return out;
}

/**
 * The stored live playlist of one rendition: the last `window` segments of those published so far
 * (sequence numbers from 0), a key line where each key window starts (and at the top), and
 * `#EXT-X-ENDLIST` when the show has ended.
 */
export function livePlaylist(
  segments: readonly { duration: number }[],
  opts: { windowSegments: number; keyWindow: number; ended: boolean },
): string {
  const first = Math.max(0, segments.length - opts.windowSegments);
  const listed = segments.slice(first);
  const target = Math.max(LIVE_SEGMENT_SECONDS, ...listed.map((s) => Math.ceil(s.duration)));
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, `#EXT-X-MEDIA-SEQUENCE:${first}`];
  listed.forEach((s, i) => {
    const sequence = first + i;
    if (i === 0 || sequence % opts.keyWindow === 0)
      lines.push(`#EXT-X-KEY:METHOD=AES-128,URI="key?w=${Math.floor(sequence / opts.keyWindow)}"`);
    lines.push(`#EXTINF:${s.duration.toFixed(3)},`, `seg_${String(sequence).padStart(5, '0')}.ts`);
  });
  if (opts.ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** A stored live playlist for one viewer: segment URIs and key URIs carry their grant and key token. */
export function rewriteLivePlaylist(text: string, name: string, query: string, keyUri: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('#EXT-X-KEY:')) return line.replace(/URI="key\?w=(\d{1,7})"/, (_, w: string) => `URI="${keyUri}&w=${w}"`);
      if (/^seg_\d{5}\.ts$/.test(line)) return `../segments/${name}-${line}?${query}`;
      return line;
    })
    .join('\n');
}

/** The master playlist for a viewer: the renditions their plan plays. */
export function liveMasterPlaylist(renditions: readonly LiveRenditionInfo[], query: string): string {
  // No CODECS: the profile x264 picks depends on the preset, and a wrong one is worse than none.
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  for (const r of renditions)
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height},NAME="${r.name}"`,
      `${r.name}/index.m3u8?${query}`,
    );
  return `${lines.join('\n')}\n`;
}
