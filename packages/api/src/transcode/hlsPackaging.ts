/**
 * What the transcoder does to each rendition after ffmpeg wrote it unencrypted, before the ladder
 * is published (both in the server's worker and in `pnpm cli transcode-runner`, local disk or S3):
 *
 * 1. `remuxProgressive`: the rendition as one faststart MP4 (`{name}/progressive.mp4`), remuxed
 *    from its segments (`-c copy`: no encode, seconds of CPU), so a member capped at that height
 *    has a progressive file that never exceeds their cap (streaming/stream.routes.ts).
 * 2. `encryptInWindows`: every segment encrypted with AES-128-CBC (PKCS#7 padding, IV = the
 *    segment's media sequence number, RFC 8216 §5.2) under the key of its window
 *    (videoKeys.ts `windowKey`: a new key every KEY_WINDOW_SEGMENTS segments), and the playlist
 *    given one `#EXT-X-KEY:METHOD=AES-128,URI="key?w=N"` per window; the API rewrites each URI to
 *    the key route with the viewer's token (streaming/hlsPlaylists.ts).
 */
import { spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { mediaBinaries } from '../media/index.js';
import { KEY_WINDOW_SEGMENTS, windowKey } from './videoKeys.js';

export const PROGRESSIVE_FILE = 'progressive.mp4';

/** The IV of media sequence number `n`: its big-endian value in 16 bytes (RFC 8216 §5.2, no IV attribute). */
export function sequenceIv(n: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(n), 8);
  return iv;
}

/**
 * The playlist with one `#EXT-X-KEY` per window of segments (pure), and the segments in order with
 * their media sequence number and window.
 * @example windowedPlaylist('#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:4.0,\nseg_00000.ts\n#EXT-X-ENDLIST\n').text
 *   // '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-KEY:METHOD=AES-128,URI="key?w=0"\n#EXTINF:4.0,\nseg_00000.ts\n#EXT-X-ENDLIST\n'
 */
export function windowedPlaylist(
  plain: string,
  windowSegments = KEY_WINDOW_SEGMENTS,
): { text: string; segments: { name: string; sequence: number; window: number }[] } {
  if (/^#EXT-X-KEY:/m.test(plain)) throw new Error('the playlist is already encrypted');
  const firstSequence = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)/m.exec(plain)?.[1] ?? 0);
  const lines = plain.split(/\r?\n/);
  const segments: { name: string; sequence: number; window: number }[] = [];
  const out: string[] = [];
  let pending: string[] = [];
  for (const line of lines) {
    // A segment's tags (#EXTINF…) go after its window's key line, so collect them until its URI.
    if (line.startsWith('#EXTINF:') || (pending.length > 0 && line.startsWith('#') && !line.startsWith('#EXT-X-ENDLIST'))) {
      pending.push(line);
      continue;
    }
    if (line && !line.startsWith('#')) {
      const index = segments.length;
      const window = Math.floor(index / windowSegments);
      if (index % windowSegments === 0) out.push(`#EXT-X-KEY:METHOD=AES-128,URI="key?w=${window}"`);
      out.push(...pending, line);
      pending = [];
      segments.push({ name: line.trim(), sequence: firstSequence + index, window });
      continue;
    }
    out.push(...pending, line);
    pending = [];
  }
  return { text: out.join('\n'), segments };
}

/** Encrypts the rendition folder's segments in place, a key per window, and rewrites its playlist. */
export async function encryptInWindows(renditionDir: string, videoKey: Buffer): Promise<void> {
  const playlistPath = path.join(renditionDir, 'index.m3u8');
  const { text, segments } = windowedPlaylist(await fsp.readFile(playlistPath, 'utf8'));
  for (const seg of segments) {
    if (!/^seg_\d{5}\.ts$/.test(seg.name)) throw new Error(`unexpected segment name in a playlist: ${seg.name}`);
    const file = path.join(renditionDir, seg.name);
    const cipher = createCipheriv('aes-128-cbc', windowKey(videoKey, seg.window), sequenceIv(seg.sequence));
    const encrypted = Buffer.concat([cipher.update(await fsp.readFile(file)), cipher.final()]);
    await fsp.writeFile(file, encrypted);
  }
  await fsp.writeFile(playlistPath, text);
}

/** Remuxes the rendition's (still unencrypted) segments into `{renditionDir}/progressive.mp4`, faststart. */
export function remuxProgressive(renditionDir: string, signal?: AbortSignal): Promise<void> {
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
    ...['-i', path.join(renditionDir, 'index.m3u8')],
    ...['-map', '0:v:0', '-map', '0:a:0?', '-c', 'copy', '-movflags', '+faststart'],
    path.join(renditionDir, PROGRESSIVE_FILE),
  ];
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped'));
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    const abort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', reject);
    child.on('close', (code) => {
      signal?.removeEventListener('abort', abort);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg could not remux the progressive file: ${stderr.trim() || `exit ${code}`}`));
    });
  });
}
