/**
 * Runs the ladder's ffmpeg as a child process (never on the event loop: Node only reads its
 * progress lines), at a lower CPU priority than the API, into a staging folder; on success the
 * media store publishes the folder (`HlsWorkspace.publish`: on the local disk it replaces the video's
 * `hls/` in one rename, on object storage it uploads it, playlists last), so players never see half a ladder.
 * ffmpeg writes the segments unencrypted into the staging folder; before anything is published each
 * rendition gets its progressive MP4 and its segments are encrypted, a key per window
 * (hlsPackaging.ts). No key is ever written to a file.
 *
 * Layout written (the same whoever transcodes, server or desktop console):
 *   videos/{id}/hls/master.m3u8            ffmpeg's master (every rendition; the API serves a filtered one)
 *   videos/{id}/hls/{name}/index.m3u8      one media playlist per rendition ("1080p"…), an #EXT-X-KEY per key window
 *   videos/{id}/hls/{name}/seg_00000.ts    AES-128-CBC encrypted MPEG-TS segments of ~4 s (a key per ~28 s window)
 *   videos/{id}/hls/{name}/progressive.mp4 the rendition as one faststart MP4 (what a member capped at its height gets)
 *   videos/{id}/hls/sprites/sprite-001.jpg seek-preview sheets (10×10 tiles of 160×90)
 *   videos/{id}/hls/previews.vtt           WebVTT map of the tiles
 * With FORENSIC_WATERMARK (watermarkVariants.ts): 1 s segments, `{name}/seg_00000b.ts` beside every
 * `seg_00000.ts` (variant B), no progressive.mp4, and `hls/watermark/` (the detector's reference frames).
 */
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mediaBinaries } from '../media/index.js';
import { encryptInWindows, remuxProgressive } from './hlsPackaging.js';
import { ladderArgs, previewInterval, type Rendition, renditionBandwidth } from './ladder.js';
import { previewLayout, previewsVtt } from './previews.js';
import type { PreviewInfo, RenditionInfo } from './transcode.decider.js';
import type { VideoKey } from './videoKeys.js';
import { finishMarkedLadder, markPlaylist, watermarkOption } from './watermarkVariants.js';

export interface TranscodeInput {
  source: string;
  /** The folder staging goes in: the video's own (`media/videos/{id}`) on the local store, scratch otherwise. */
  videoDir: string;
  /** Publishes the finished staging folder as the video's ladder and removes it (the media store's `HlsWorkspace.publish`, or a remote runner's uploads). */
  publish: (stagingDir: string) => Promise<void>;
  attempt: number;
  renditions: Rendition[];
  hasAudio: boolean;
  durationSeconds: number;
  preset: string;
  key: VideoKey;
  /** FORENSIC_WATERMARK: every rendition in A and B variants (watermarkVariants.ts); the video's id chooses the pattern. */
  watermark?: { videoId: string };
  /** Runs after ffmpeg succeeded, before the ladder replaces the video's `hls/`; throwing leaves it as it was. */
  beforeSwap?: () => Promise<void>;
  /** Fraction done, 0..1, about once a second. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface TranscodeOutput {
  renditions: RenditionInfo[];
  previews: PreviewInfo;
  totalBytes: number;
  ffmpegSeconds: number;
}

export class TranscodeError extends Error {}

/** ffmpeg ended before the end of its source (a connection to the object store that broke, read as an end of file). */
export class SourceCutShortError extends TranscodeError {}

/** Seconds of media a playlist lists (the sum of its #EXTINF durations). */
export function playlistSeconds(playlist: string): number {
  let total = 0;
  for (const m of playlist.matchAll(/^#EXTINF:([\d.]+)/gm)) total += Number(m[1]);
  return total;
}

/** The codecs ffmpeg wrote per rendition in its master playlist (`RESOLUTION`, `CODECS`). */
export function codecsFromMaster(master: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = master.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.startsWith('#EXT-X-STREAM-INF:')) continue;
    const codecs = /CODECS="([^"]+)"/.exec(line)?.[1];
    const uri = lines.slice(i + 1).find((l) => l.trim() && !l.startsWith('#'));
    const name = uri?.split('/')[0];
    if (codecs && name) out.set(name, codecs);
  }
  return out;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(p) : (await fsp.stat(p)).size;
  }
  return total;
}

/** Removes staging folders of earlier attempts (a killed process's, possibly still being written by its orphan ffmpeg). */
async function removeStaging(videoDir: string): Promise<void> {
  const names = await fsp.readdir(videoDir).catch(() => [] as string[]);
  for (const n of names) if (/^hls\.(tmp|old)-/.test(n)) await fsp.rm(path.join(videoDir, n), { recursive: true, force: true });
}

function runFfmpeg(args: string[], durationSeconds: number, onProgress?: (f: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // A stop that came while the attempt was being prepared: no ffmpeg is started for it.
    if (signal?.aborted) return reject(new TranscodeError('transcode stopped: the server is shutting down'));
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      if (child.pid) os.setPriority(child.pid, 10);
    } catch {
      // not allowed here: run at normal priority
    }
    let stderr = '';
    let buffered = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-8000);
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const l of lines) {
        const m = /^out_time_(?:us|ms)=(\d+)/.exec(l);
        if (m && durationSeconds > 0) onProgress?.(Math.min(1, Number(m[1]) / 1e6 / durationSeconds));
      }
    });
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => reject(new TranscodeError(`ffmpeg could not start: ${err.message}`)));
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', abort);
      if (code === 0) resolve();
      else if (signal?.aborted) reject(new TranscodeError('transcode stopped: the server is shutting down'));
      else reject(new TranscodeError(stderr.trim() || `ffmpeg exited with ${sig ?? `code ${code}`}`));
    });
  });
}

/**
 * Transcodes `source` into the video's `hls/` folder (see the module comment).
 * @example await transcodeToHls({ source, videoDir, attempt: 1, renditions: planLadder(probe), … })
 */
export async function transcodeToHls(input: TranscodeInput): Promise<TranscodeOutput> {
  const staging = path.join(input.videoDir, `hls.tmp-${input.attempt}-${process.pid}`);
  try {
    await removeStaging(input.videoDir);
    await fsp.mkdir(path.join(staging, 'sprites'), { recursive: true });
    for (const r of input.renditions) await fsp.mkdir(path.join(staging, r.name), { recursive: true });

    const started = process.hrtime.bigint();
    const mark = input.watermark ? watermarkOption(input.watermark.videoId) : undefined;
    await runFfmpeg(
      ladderArgs({
        ...(mark && { watermark: mark }),
        input: input.source,
        outDir: staging,
        renditions: input.renditions,
        hasAudio: input.hasAudio,
        durationSeconds: input.durationSeconds,
        preset: input.preset,
      }),
      input.durationSeconds,
      input.onProgress,
      input.signal,
    );

    const codecs = codecsFromMaster(await fsp.readFile(path.join(staging, 'master.m3u8'), 'utf8'));
    const renditions: RenditionInfo[] = [];
    for (const r of input.renditions) {
      const playlist = await fsp.readFile(path.join(staging, r.name, 'index.m3u8'), 'utf8');
      if (!playlist.includes('#EXT-X-ENDLIST')) throw new TranscodeError(`ffmpeg left an incomplete playlist for ${r.name}`);
      // ffmpeg reads a source whose connection broke as ended, and exits 0 with half a ladder.
      const seconds = playlistSeconds(playlist);
      if (seconds < input.durationSeconds - Math.max(2, input.durationSeconds * 0.05))
        throw new SourceCutShortError(
          `ffmpeg read only ${seconds.toFixed(1)} s of the source's ${input.durationSeconds.toFixed(1)} s (its input ended early)`,
        );
      renditions.push({
        name: r.name,
        width: r.width,
        height: r.height,
        bandwidth: renditionBandwidth(r, input.hasAudio),
        codecs: codecs.get(r.name) ?? (input.hasAudio ? 'avc1.640028,mp4a.40.2' : 'avc1.640028'),
        // A marked rendition has no progressive file: it would carry variant A alone, no member's code.
        progressive: !mark,
      });
    }
    if (mark)
      await finishMarkedLadder(staging, input.renditions, input.key.key, input.signal).catch((err: Error) => {
        throw new TranscodeError(input.signal?.aborted ? 'transcode stopped: the server is shutting down' : err.message);
      });
    // The progressive file from the plain segments, then the segments encrypted in key windows.
    for (const r of input.renditions) {
      if (mark) {
        await encryptInWindows(path.join(staging, r.name), input.key.key);
        await markPlaylist(path.join(staging, r.name));
        continue;
      }
      await remuxProgressive(path.join(staging, r.name), input.signal).catch((err: Error) => {
        throw new TranscodeError(input.signal?.aborted ? 'transcode stopped: the server is shutting down' : err.message);
      });
      await encryptInWindows(path.join(staging, r.name), input.key.key);
    }
    const ffmpegSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const layout = previewLayout(input.durationSeconds, previewInterval(input.durationSeconds));
    await fsp.writeFile(path.join(staging, 'previews.vtt'), previewsVtt(layout, input.durationSeconds));
    const totalBytes = await folderBytes(staging);

    // A runner whose lease has passed must not replace the ladder, on disk or in the object store.
    await input.beforeSwap?.();
    await input.publish(staging);
    return { renditions, previews: layout, totalBytes, ffmpegSeconds };
  } catch (err) {
    await fsp.rm(staging, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}
