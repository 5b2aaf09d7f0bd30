/**
 * Test-only: what OBS sends, made by ffmpeg (H.264 + AAC in FLV over RTMP, in real time, a keyframe
 * every 2 s), a free port for a suite's own RTMP ingest, the wait for a show's state, and the site
 * config whose plan caps the live suites assert. live.int.test.ts, liveAccess.int.test.ts,
 * liveProcesses.int.test.ts, nginxRtmp.int.test.ts and the web's live-show.e2e.test.ts use it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { exampleSiteConfig } from '../../test/siteConfig.js';
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

/** Polls `fn` every 250 ms until it gives a truthy value, or throws naming `what` after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await fn();
    if (value) return value;
    await sleep(250);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** The example site with a 240p cap for monthly and free viewers, 1080p for annual (the ladder's caps under test). */
export const LIVE_TEST_SITE = (() => {
  const example = exampleSiteConfig();
  return { media: { ...example.media, maxHeightByPlan: { monthly: 240, annual: 1080 }, freeMaxHeight: 240 } };
})();
