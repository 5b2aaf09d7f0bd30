/**
 * The one module that runs ffmpeg and ffprobe (through fluent-ffmpeg). Everything else asks it to
 * probe a file or take a thumbnail, so swapping the wrapper (e.g. for a direct `spawn`) touches
 * only this file. Runs in the main process (or the dev bridge), never in the renderer.
 *
 * Binaries: Debian's /usr/bin/ffmpeg and /usr/bin/ffprobe when present, else the ones shipped in
 * @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe (inside a packaged app they sit in
 * app.asar.unpacked). FFMPEG_PATH / FFPROBE_PATH override both.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';

export interface ProbeResult {
  path: string;
  fileName: string;
  size: number;
  isVideo: boolean;
  /** Why the file is not a video (for the table's flag). */
  reason?: string;
  durationSeconds: number;
  width: number;
  height: number;
  codec: string;
  container: string;
}

export interface MediaBinaries {
  ffmpeg: string;
  ffprobe: string;
}

const requireCjs = createRequire(import.meta.url);

function unpacked(p: string): string {
  return p.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
}

function installerPath(pkg: string): string | undefined {
  try {
    return unpacked((requireCjs(pkg) as { path: string }).path);
  } catch {
    return undefined;
  }
}

/** Where the binaries are: env override, then the system install, then the npm-shipped ones. */
export function resolveBinaries(): MediaBinaries {
  const pick = (envName: string, system: string, pkg: string, name: string) => {
    const fromEnv = process.env[envName];
    if (fromEnv) return fromEnv;
    if (fs.existsSync(system)) return system;
    const shipped = installerPath(pkg);
    if (shipped && fs.existsSync(shipped)) return shipped;
    throw new Error(`${name} not found: install it (apt-get install ffmpeg) or the ${pkg} package`);
  };
  return {
    ffmpeg: pick('FFMPEG_PATH', '/usr/bin/ffmpeg', '@ffmpeg-installer/ffmpeg', 'ffmpeg'),
    ffprobe: pick('FFPROBE_PATH', '/usr/bin/ffprobe', '@ffprobe-installer/ffprobe', 'ffprobe'),
  };
}

let configured: MediaBinaries | undefined;
function binaries(): MediaBinaries {
  if (!configured) {
    configured = resolveBinaries();
    ffmpeg.setFfmpegPath(configured.ffmpeg);
    ffmpeg.setFfprobePath(configured.ffprobe);
  }
  return configured;
}

/**
 * Containers ffprobe reports for stills and text: a JPEG has a "video" stream too, and a plain
 * .txt file is read by the `tty` demuxer as an ANSI-art "video"; neither is a video.
 */
const NOT_VIDEO_FORMATS = /(^|,)(image2|png_pipe|jpeg_pipe|webp_pipe|gif|bmp_pipe|tiff_pipe|svg_pipe|apng|tty|bin|xbin|adf|idf)(,|$)/;
const NOT_VIDEO_CODECS = new Set(['ansi', 'bintext', 'xbin', 'idf', 'mjpeg', 'png', 'bmp', 'gif', 'webp', 'tiff']);

function notVideo(file: string, size: number, reason: string): ProbeResult {
  return {
    path: file,
    fileName: path.basename(file),
    size,
    isVideo: false,
    reason,
    durationSeconds: 0,
    width: 0,
    height: 0,
    codec: '',
    container: '',
  };
}

/**
 * Reads duration, resolution, codec and size. Never throws for a bad file: it is flagged instead.
 * @example const info = await probe('/videos/golden-hour.mp4'); if (!info.isVideo) show(info.reason);
 */
export async function probe(file: string): Promise<ProbeResult> {
  binaries();
  let size: number;
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return notVideo(file, 0, 'Not a file');
    size = st.size;
  } catch {
    return notVideo(file, 0, 'File not found');
  }
  const data = await new Promise<ffmpeg.FfprobeData | Error>((resolve) => {
    ffmpeg.ffprobe(file, (err: Error | null, d: ffmpeg.FfprobeData) => resolve(err ? err : d));
  });
  if (data instanceof Error) return notVideo(file, size, 'Not a video file (ffprobe could not read it)');
  const stream = data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const container = data.format.format_name ?? '';
  const duration = Number(data.format.duration ?? stream?.duration ?? 0);
  if (!stream) return notVideo(file, size, 'Not a video file (no video stream)');
  if (NOT_VIDEO_FORMATS.test(container) || (NOT_VIDEO_CODECS.has(stream.codec_name ?? '') && !/mov|mp4|matroska|avi/.test(container)))
    return notVideo(file, size, 'Not a video file (an image or text)');
  if (!(duration > 0)) return notVideo(file, size, 'Not a video file (no duration)');
  return {
    path: file,
    fileName: path.basename(file),
    size,
    isVideo: true,
    durationSeconds: duration,
    width: stream.width ?? 0,
    height: stream.height ?? 0,
    codec: stream.codec_name ?? '',
    container,
  };
}

export interface ThumbnailOptions {
  /** Seconds into the video; default 10% of its duration. */
  atSeconds?: number;
  /** Output width in pixels (height keeps the aspect ratio). */
  width?: number;
  /** Where to write; default a cache folder under the OS temp dir. */
  outDir?: string;
}

export interface Thumbnail {
  path: string;
  atSeconds: number;
}

function runFfmpeg(command: ffmpeg.FfmpegCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    command
      .on('end', () => resolve())
      .on('error', (err: Error) => reject(err))
      .run();
  });
}

/**
 * Takes one JPEG frame at ~10% of the video (or `atSeconds`), scaled to `width`.
 * @example const t = await thumbnail('/videos/a.mp4', { atSeconds: 2.5 });
 */
export async function thumbnail(file: string, opts: ThumbnailOptions = {}): Promise<Thumbnail> {
  binaries();
  const info = await probe(file);
  if (!info.isVideo) throw new Error(info.reason ?? 'Not a video file');
  const at = Math.max(0, Math.min(opts.atSeconds ?? info.durationSeconds * 0.1, Math.max(0, info.durationSeconds - 0.05)));
  const width = opts.width ?? 640;
  const outDir = opts.outDir ?? path.join(os.tmpdir(), 'members-admin-thumbnails');
  await fsp.mkdir(outDir, { recursive: true });
  const key = createHash('sha256')
    .update(`${file}|${info.size}|${at.toFixed(3)}|${width}`)
    .digest('hex')
    .slice(0, 24);
  const out = path.join(outDir, `${key}.jpg`);
  if (!fs.existsSync(out)) {
    const tmp = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp.jpg`;
    const take = (seek: number) =>
      runFfmpeg(
        ffmpeg(file)
          .seekInput(seek)
          .frames(1)
          .videoFilters(`scale=${width}:-2`)
          .outputOptions(['-q:v', '4', '-f', 'image2', '-y'])
          .output(tmp),
      );
    await take(at);
    // Seeking near the end of some files yields no frame: fall back to the first one.
    if (!fs.existsSync(tmp) || fs.statSync(tmp).size === 0) await take(0);
    await fsp.rename(tmp, out);
  }
  return { path: out, atSeconds: at };
}

/** A thumbnail as a data URL for the renderer's <img> (thumbnails are small JPEGs). */
export async function thumbnailDataUrl(thumb: Thumbnail): Promise<string> {
  return `data:image/jpeg;base64,${(await fsp.readFile(thumb.path)).toString('base64')}`;
}

/** Video-looking files inside folders (for a dropped folder), files as they are; sorted, no duplicates. */
export async function expandPaths(paths: string[], maxDepth = 3): Promise<string[]> {
  const out = new Set<string>();
  async function walk(p: string, depth: number): Promise<void> {
    let st: fs.Stats;
    try {
      st = await fsp.stat(p);
    } catch {
      return;
    }
    if (st.isFile()) {
      out.add(p);
      return;
    }
    if (!st.isDirectory() || depth > maxDepth) return;
    const entries = await fsp.readdir(p);
    for (const e of entries.sort()) if (!e.startsWith('.')) await walk(path.join(p, e), depth + 1);
  }
  for (const p of paths) await walk(path.resolve(p), 0);
  return [...out];
}
