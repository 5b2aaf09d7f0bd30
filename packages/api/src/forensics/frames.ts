/**
 * Decodes a video (a file, an HLS playlist, a URL ffmpeg reads) to the small grayscale frames the
 * detector works on (detect.ts: FRAME_WIDTH×FRAME_HEIGHT luma, FRAME_RATE per second), in an ffmpeg
 * child process at a lower CPU priority. A 75 s copy is ~170 kB of frames.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { mediaBinaries } from '../media/index.js';
import { FRAME_HEIGHT, FRAME_RATE, FRAME_WIDTH } from './detect.js';

export class FramesError extends Error {}

export function grayFrames(input: string, signal?: AbortSignal): Promise<Uint8Array> {
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    ...['-i', input],
    ...['-map', '0:v:0', '-an', '-sn'],
    // Area averaging: what a 64×36 picture of the frame is, whatever its size or a few cropped pixels.
    ...['-vf', `fps=${FRAME_RATE},scale=${FRAME_WIDTH}:${FRAME_HEIGHT}:flags=area,format=gray`],
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
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => reject(new FramesError(`ffmpeg could not start: ${err.message}`)));
    child.on('close', (code) => {
      signal?.removeEventListener('abort', abort);
      if (code === 0) resolve(new Uint8Array(Buffer.concat(chunks)));
      else reject(new FramesError(`ffmpeg could not decode the video: ${stderr.trim() || `exit ${code}`}`));
    });
  });
}
