/**
 * A live show in the three engines members use (issue 43): Chromium, Firefox ESR and WebKitGTK each
 * log in, open the show's page while ffmpeg pushes RTMP (what OBS sends) to the real server's
 * embedded ingest, and play the encrypted live HLS at the live edge: the picture advances, the LIVE
 * badge is shown, the element has no native controls (no seek bar), and the playhead stays within
 * the live window. One push serves the three engines; live-show.e2e.test.ts covers the page's words
 * before and after the show.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { adminToken, apiClient, approvedMember, freePort, pushRtmp, startTestServer, type TestServer } from '../../api/test/support';
import { ensureBuilt, WEB_DIST } from './browser';
import { logIn, waitFor } from './engines/journey';
import { type EngineName, itInEachEngine } from './engines/ofThisRun';

const MEMBER = { email: 'live.engines@example.test', password: 'member-password-1' };

let server: TestServer;
let pusher: ChildProcess | undefined;
let showId: string;

describe('a live show in three engines', () => {
  beforeAll(async () => {
    ensureBuilt();
    const port = await freePort();
    server = await startTestServer('sqlite', { env: { WEB_DIST, LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' } });
    await approvedMember(apiClient(server.url), { ...MEMBER, firstName: 'Eng', lastName: 'Live', dateOfBirth: '1990-05-06' });
    const token = await adminToken(server);
    const api = apiClient(server.url);
    const scheduled = await api.call('POST', '/admin/live/shows', {
      token,
      body: { title: 'Three engines live', accessLevel: 'free', startsAt: '2026-12-06T20:00:00Z', saveReplay: false },
    });
    showId = scheduled.body.data.show.id;
    // Long enough for the three engines one after the other; stopped in afterAll.
    pusher = pushRtmp(`rtmp://127.0.0.1:${port}/live/${scheduled.body.data.show.streamKey}`, { seconds: 600 });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const shows = (await api.call('GET', '/live/shows', { token })).body.data.shows as { id: string; status: string }[];
      if (shows.find((s) => s.id === showId)?.status === 'live') break;
      if (Date.now() > deadline) throw new Error('the show did not go live');
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(async () => {
    pusher?.kill('SIGKILL');
    await server?.close();
  });

  const titles: Record<EngineName, string> = {
    Chromium: 'Chromium: plays the live show at the live edge, LIVE badge, no seek bar',
    'Firefox ESR': 'Firefox ESR (WebDriver BiDi): the same',
    WebKitGTK: 'WebKitGTK (WebKitWebDriver, MiniBrowser): the same',
  };
  itInEachEngine(
    (engine) => titles[engine],
    async (start) => {
      const d = await start();
      try {
        await logIn(d, { base: server.url, email: MEMBER.email, password: MEMBER.password, videoId: '' });
        await d.goto(`${server.url}/live/${showId}`);
        const VIDEO = "document.querySelector('[data-testid=live-video]')";
        await waitFor(d, 'the live picture', `const v = ${VIDEO}; return !!v && v.readyState >= 3`, undefined, 40_000);
        const from = await d.evaluate<number>(`return ${VIDEO}.currentTime`);
        await waitFor(d, 'the live picture to advance', `const v = ${VIDEO}; return !v.paused && v.currentTime > arguments[0] + 2`, from);
        const state = await d.evaluate<{ engine: string; controls: boolean; behindEdge: number; badge: string }>(
          `const v = ${VIDEO};
           const edge = v.seekable.length ? v.seekable.end(v.seekable.length - 1) : NaN;
           return { engine: v.dataset.engine, controls: v.controls, behindEdge: edge - v.currentTime,
             badge: document.querySelector('[data-testid=live-badge]').textContent };`,
        );
        expect(state.engine).toBe('hls.js');
        expect(state.controls).toBe(false);
        expect(state.badge).toBe('LIVE');
        expect(state.behindEdge).toBeGreaterThanOrEqual(0);
        expect(state.behindEdge).toBeLessThan(10);
        expect(d.problems()).toEqual([]);
      } finally {
        await d.close();
      }
    },
    120_000,
  );
});
