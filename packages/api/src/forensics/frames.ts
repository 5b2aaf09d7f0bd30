/**
 * Decodes a video (a file, an HLS playlist, a URL ffmpeg reads) to the small grayscale frames the
 * detector works on (detect.ts: FRAME_WIDTH×FRAME_HEIGHT luma), in an ffmpeg child process at a
 * lower CPU priority, each frame with its presentation time:
 *
 * - a reference (`rate` given: REFERENCE_RATE when the transcoder keeps one) is resampled to that
 *   constant rate, frame i at i/rate seconds from the start;
 * - a copy is read frame for frame as it was made (24 fps from a screen capture, 30 from a
 *   download, variable from a phone), each frame at the time ffmpeg's `showinfo` reports, so the
 *   detector compares it with the reference frame of the very same instant (detect.ts `align`).
 *
 * A 75 s copy at 30 fps is ~5 MB of frames.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { mediaBinaries } from '../media/index.js';
import { FRAME_HEIGHT, FRAME_PIXELS, FRAME_WIDTH, type Frames } from './detect.js';

export class FramesError extends Error {}

const SHOWINFO_TIME = /\] n:\s*\d+ .*?pts_time:(-?[\d.]+)/;

/** `rate`: frames a second, a number or an ffmpeg rational such as "30000/2002". */
export function grayFrames(input: string, opts: { rate?: number | string; signal?: AbortSignal } = {}): Promise<Frames> {
  const { rate, signal } = opts;
  // Area averaging: what a 64×36 picture of the frame is, whatever its size or a few cropped pixels.
  const small = `scale=${FRAME_WIDTH}:${FRAME_HEIGHT}:flags=area,format=gray`;
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', rate ? 'error' : 'info'],
    ...['-i', input],
    ...['-map', '0:v:0', '-an', '-sn'],
    ...(rate ? ['-vf', `fps=${rate},${small}`] : ['-vf', `${small},showinfo`, '-fps_mode', 'passthrough']),
    ...['-f', 'rawvideo', 'pipe:1'],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      if (child.pid) os.setPriority(child.pid, 10);
    } catch {
      // not allowed here: normal priority
    }
    const chunks: Buffer[] = [];
    const times: number[] = [];
    let line = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      const lines = (line + d).split('\n');
      line = lines.pop() ?? '';
      for (const l of lines) {
        const t = SHOWINFO_TIME.exec(l);
        if (t) times.push(Number(t[1]));
        else if (!l.includes('showinfo')) stderr = `${stderr}${l}\n`.slice(-4000);
      }
    });
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => reject(new FramesError(`ffmpeg could not start: ${err.message}`)));
    child.on('close', (code) => {
      signal?.removeEventListener('abort', abort);
      if (code !== 0) {
        reject(new FramesError(`ffmpeg could not decode the video: ${stderr.trim() || `exit ${code}`}`));
        return;
      }
      const data = new Uint8Array(Buffer.concat(chunks));
      if (rate) resolve(framesOf(data, rateOf(rate)));
      else {
        const count = Math.min(times.length, Math.floor(data.length / FRAME_PIXELS));
        resolve({ data: data.subarray(0, count * FRAME_PIXELS), count, times: Float64Array.from(times.slice(0, count)) });
      }
    });
  });
}

/** Frames at a constant rate (a stored reference), frame i at i/rate seconds. */
export function framesOf(data: Uint8Array, rate: number): Frames {
  const count = Math.floor(data.length / FRAME_PIXELS);
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) times[i] = i / rate;
  return { data, count, times };
}

/** The video stream's frame rate as ffprobe reports it (`r_frame_rate`), or null when it cannot tell. */
export function frameRateOf(input: string): Promise<{ num: number; den: number } | null> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=r_frame_rate', '-of', 'csv=p=0', input];
  return new Promise((resolve) => {
    const child = spawn(mediaBinaries().ffprobe, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', () => resolve(null));
    child.on('close', () => {
      const m = /^(\d+)\/(\d+)/.exec(out.trim());
      const num = Number(m?.[1]);
      const den = Number(m?.[2]);
      resolve(num > 0 && den > 0 && num / den <= 240 ? { num, den } : null);
    });
  });
}

const rateOf = (rate: number | string) => {
  if (typeof rate === 'number') return rate;
  const [num, den = '1'] = rate.split('/');
  return Number(num) / Number(den);
};
