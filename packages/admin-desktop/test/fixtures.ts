/**
 * Test fixtures: real videos made by ffmpeg from its test sources (a pattern and a sine tone), a
 * file that is not a video, and an admin token on a test server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export {
  acceptedStaff,
  adminToken,
  apiClient,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
  tmpDir,
  totpCode,
  wrongTotpCode,
} from '../../api/test/support.js';

export interface VideoSpec {
  seconds?: number;
  width?: number;
  height?: number;
  /** Noisy frames make a larger file (for chunked and interrupted uploads). */
  noise?: boolean;
}

/** An H.264/AAC MP4 of `seconds` seconds. */
export function makeVideo(dir: string, name: string, spec: VideoSpec = {}): string {
  const { seconds = 3, width = 160, height = 120, noise = false } = spec;
  const file = path.join(dir, name);
  const filters = noise ? ['-vf', 'noise=alls=60:allf=t', '-b:v', '3M', '-maxrate', '3M', '-bufsize', '1M'] : [];
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=${width}x${height}:rate=15`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    ...filters,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    '-y',
    file,
  ]);
  return file;
}

export function makeTextFile(dir: string, name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, 'This is not a video.\n'.repeat(50));
  return file;
}

/** A still JPEG (ffprobe sees a "video" stream in it; it must still be flagged). */
export function makeImage(dir: string, name: string): string {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=1', '-frames:v', '1', '-y', file]);
  return file;
}
