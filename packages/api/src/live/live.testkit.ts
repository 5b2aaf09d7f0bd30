/**
 * Test-only: what OBS sends, made by ffmpeg (H.264 + AAC in FLV over RTMP, in real time, a keyframe
 * every 2 s), and a free port for a suite's own RTMP ingest. live.int.test.ts, liveAccess.int.test.ts
 * and the web's live-show.e2e.test.ts push with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { mediaBinaries } from '../media/index.js';

/** A port nobody listens on now (the ingest binds it right after). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Pushes a test picture (and a tone, unless `audio: false`) to `url` (`rtmp://…/live/KEY`) for `seconds`. */
export function pushRtmp(url: string, opts: { seconds?: number; size?: string; audio?: boolean } = {}): ChildProcess {
  const seconds = opts.seconds ?? 60;
  const audio = opts.audio ?? true;
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-re'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${opts.size ?? '640x360'}:rate=25:duration=${seconds}`],
    ...(audio ? ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`] : []),
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '50', '-pix_fmt', 'yuv420p'],
    ...(audio ? ['-c:a', 'aac', '-b:a', '64k'] : []),
    ...['-f', 'flv', url],
  ];
  return spawn(mediaBinaries().ffmpeg, args, { stdio: 'ignore' });
}
