/**
 * Play pressed while the stream is still loading, then a new load under it, in the three engines
 * members use. A load that starts while a `play()` is pending (hls.js detaching when the player
 * gives up on it, the progressive file put in its place) rejects that Play with AbortError and sets
 * the element back to paused: the HTML load algorithm, in every engine. The player used to swallow
 * the rejection, so the member's Play did nothing and the fallback file sat paused on its first
 * frame. Here the race happens every time: a proxy holds the first HLS segment until Play has
 * been pressed, then refuses every segment, so hls.js gives up and the player falls back to the
 * progressive file. The player must report the rejection (`play:AbortError`) and play anyway.
 *
 * Measured while writing this: a Play pressed before hls.js itself has arrived (no source on the
 * element yet) is not aborted in any of the three engines — the element's network state is still
 * empty, so attaching the source leaves the Play standing — and plays on the old code too.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { freePort } from '../../../scripts/freePort.mjs';
import { type TestServer, tmpDir } from '../../api/test/support';
import { type EngineDriver, logIn, openPlayer, waitFor } from './engines/journey';
import { itInEachEngine } from './engines/ofThisRun';
import { type HoldingProxy, holdingProxy } from './holdingProxy';
import { playerServer } from './playerServer';

const MEMBER = { email: 'early.play@example.test', password: 'member-password-1' };
const VIDEO = '[data-testid=secure-video]';
/** Every HLS media segment of the video. */
const SEGMENTS = /^\/api\/hls\/[^/]+\/segments\//;

let server: TestServer;
let proxy: HoldingProxy;
let videoId: string;
const media = tmpDir('web-e2e-play-interrupted-');

beforeAll(async () => {
  // The browser reaches the site through the proxy: the site's address is the proxy's.
  const port = await freePort();
  ({ server, videoId } = await playerServer({
    media,
    member: { ...MEMBER, firstName: 'Early', lastName: 'Play', dateOfBirth: '1990-05-06' },
    clip: { width: 640, height: 360, seconds: 8, kbps: 600 },
    video: { title: 'Early Play', duration: '0:08', accessLevel: 'free' },
    env: { PUBLIC_URL: `http://127.0.0.1:${port}` },
  }));
  proxy = await holdingProxy(server.url, port);
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  fs.rmSync(media, { recursive: true, force: true });
});

async function playThenFallback(start: () => Promise<EngineDriver>) {
  const d = await start();
  try {
    const fixture = { base: proxy.url, email: MEMBER.email, password: MEMBER.password, videoId };
    await logIn(d, fixture);
    const segments = proxy.hold(SEGMENTS);
    await openPlayer(d, fixture);
    // hls.js is attached and waits for its first segment, which is held: a Play now is pending.
    await segments.requested;
    await waitFor(d, 'the Play button', `return !!document.querySelector('button[aria-label=Play]')`);
    // Every stream problem the player reports (they bubble from the <video> as `streamproblem`).
    await d.evaluate(`window.__problems = [];
      document.addEventListener('streamproblem', (e) => window.__problems.push(e.detail.details))`);
    await d.click('//button[@aria-label="Play"]');
    expect(await d.evaluate<number>(`return document.querySelector('${VIDEO}').readyState`)).toBeLessThan(3);
    // No segment will come: hls.js gives up, and the player puts the progressive file in its place.
    segments.refuse(404);
    await waitFor(d, 'the progressive file', `return document.querySelector('${VIDEO}').dataset.engine === 'progressive'`);
    await waitFor(d, 'playback after the fallback', `return document.querySelector('${VIDEO}').currentTime > 1`);
    // The race did happen (a positive control): the new load rejected the pending Play, and the player said so.
    expect(await d.evaluate<string[]>('return window.__problems')).toContain('play:AbortError');
  } finally {
    await d.close();
  }
}

describe('a Play pending when the player falls back to the progressive file plays, and its abort is reported', () => {
  itInEachEngine((engine) => engine, playThenFallback);
});
