/**
 * ffprobe through fluent-ffmpeg (probe a file by its bytes) and ffmpeg (extract a thumbnail frame).
 * Binaries, in order: FFMPEG_PATH/FFPROBE_PATH, Debian's /usr/bin (VP9/Opus, what `.ci/run`
 * installs), then the static builds shipped inside @ffmpeg-installer/@ffprobe-installer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import ffmpeg from 'fluent-ffmpeg';
import { UPLOADED_VIDEO_INPUT } from './uploadedVideoInput.js';

const require = createRequire(import.meta.url);

function resolveBinary(name: 'ffmpeg' | 'ffprobe'): string {
  const fromEnv = process.env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH'];
  if (fromEnv && fs.existsSync(fromEnv)) return fromEnv;
  const system = `/usr/bin/${name}`;
  if (fs.existsSync(system)) return system;
  try {
    const pkg = name === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe';
    return (require(pkg) as { path: string }).path;
  } catch {
    return name; // last resort: whatever is on PATH
  }
}

let configured: { ffmpeg: string; ffprobe: string } | undefined;

/** The binaries in use (resolved once). */
export function mediaBinaries(): { ffmpeg: string; ffprobe: string } {
  if (!configured) {
    configured = { ffmpeg: resolveBinary('ffmpeg'), ffprobe: resolveBinary('ffprobe') };
    ffmpeg.setFfmpegPath(configured.ffmpeg);
    ffmpeg.setFfprobePath(configured.ffprobe);
  }
  return configured;
}

export interface VideoProbe {
  /** Seconds, from the container (or the video stream when the container has none). */
  durationSeconds: number;
  width: number;
  height: number;
  /** Video codec, e.g. "h264", "vp9". */
  codec: string;
  audioCodec: string | null;
  /** ffprobe's format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm". */
  formatName: string;
  /** The MIME type the media route serves it with. */
  mimeType: string;
  /** File extension used in storage (without the dot). */
  extension: string;
}

export type ProbeResult = { ok: true; probe: VideoProbe } | { ok: false; error: string };

/** Image "formats" ffprobe happily reports as a video stream: a still picture is not a video. */
const IMAGE_FORMATS = /(^|,)(image2|\w+_pipe|gif|apng|webp_pipe|png_pipe|jpeg_pipe)(,|$)/;

function containerOf(formatName: string, codec: string): { mimeType: string; extension: string } {
  if (/webm|matroska/.test(formatName)) {
    const webm = ['vp8', 'vp9', 'av1'].includes(codec);
    return webm ? { mimeType: 'video/webm', extension: 'webm' } : { mimeType: 'video/x-matroska', extension: 'mkv' };
  }
  if (/mp4|mov/.test(formatName)) return { mimeType: 'video/mp4', extension: 'mp4' };
  if (/avi/.test(formatName)) return { mimeType: 'video/x-msvideo', extension: 'avi' };
  if (/mpegts/.test(formatName)) return { mimeType: 'video/mp2t', extension: 'ts' };
  if (/ogg/.test(formatName)) return { mimeType: 'video/ogg', extension: 'ogv' };
  return { mimeType: 'application/octet-stream', extension: 'bin' };
}

/**
 * Probes a file (a path, or a URL) by its bytes. Not a video (no video stream, a still image, no duration) → `ok: false`.
 * @example const r = await probeVideo('/tmp/upload.part'); if (r.ok) r.probe.durationSeconds
 */
export function probeVideo(filePath: string): Promise<ProbeResult> {
  mediaBinaries();
  const notVideo = 'The uploaded file is not a playable video (no video stream found)';
  return new Promise((resolve) => {
    ffmpeg.ffprobe(filePath, UPLOADED_VIDEO_INPUT, (err, data) => {
      if (err || !data) return resolve({ ok: false, error: notVideo });
      const video = data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
      const formatName = String(data.format.format_name ?? '');
      if (!video || IMAGE_FORMATS.test(formatName)) return resolve({ ok: false, error: notVideo });
      const duration = Number(data.format.duration ?? video.duration);
      if (!Number.isFinite(duration) || duration <= 0) return resolve({ ok: false, error: 'The uploaded video has no duration' });
      const codec = String(video.codec_name ?? 'unknown');
      const audio = data.streams.find((s) => s.codec_type === 'audio');
      resolve({
        ok: true,
        probe: {
          durationSeconds: duration,
          width: Number(video.width ?? 0),
          height: Number(video.height ?? 0),
          codec,
          audioCodec: audio?.codec_name ?? null,
          formatName,
          ...containerOf(formatName, codec),
        },
      });
    });
  });
}

/**
 * Writes one JPEG frame taken at `atSeconds` (at most 640 px wide) to `outPath`.
 * ffmpeg is run directly, not through fluent-ffmpeg: its `run()` first asks ffmpeg for every format
 * and encoder it has (`ffmpeg -formats`, `ffmpeg -encoders`, two more processes in each API process
 * before its first thumbnail) to check names this fixed command does not use.
 * @example await extractThumbnail(video, probe.durationSeconds * 0.1, '/data/.../thumbnail.jpg')
 */
export function extractThumbnail(videoPath: string, atSeconds: number, outPath: string): Promise<void> {
  const { ffmpeg: binary } = mediaBinaries();
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-nostdin'],
    ...UPLOADED_VIDEO_INPUT,
    ...['-ss', Math.max(0, atSeconds).toFixed(3), '-i', videoPath],
    ...['-frames:v', '1', '-vf', 'scale=min(640\\,iw):-2', '-q:v', '4', '-f', 'image2', '-y', outPath],
  ];
  return new Promise((resolve, reject) => {
    execFile(binary, args, { maxBuffer: 1024 * 1024 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`ffmpeg could not take a thumbnail: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}
