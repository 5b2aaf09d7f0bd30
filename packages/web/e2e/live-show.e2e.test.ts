/**
 * A live show in Chromium against the real server (issue 43): the page says "The show has not
 * started" before the push; ffmpeg then pushes what OBS sends (RTMP, 360p) to the embedded ingest,
 * and the member's page plays the encrypted live HLS through hls.js at the live edge with the LIVE
 * badge, no seek bar, and the member's watermark; once the push stops, "The show has ended".
 * Firefox ESR and WebKitGTK are not run on it yet (docs/live.md).
 */
import type { ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiClient, approvedMember, freePort, pushRtmp, startTestServer, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const MEMBER = { email: 'live.viewer@example.test', password: 'member-password-1' };
const T = 30_000;

let server: TestServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let pusher: ChildProcess | undefined;
let rtmp: string;
let show: { id: string; streamKey: string };
const requests: { path: string; status: number }[] = [];

describe('a live show in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    const port = await freePort();
    rtmp = `rtmp://127.0.0.1:${port}/live`;
    server = await startTestServer('sqlite', { env: { WEB_DIST, LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' } });
    await approvedMember(apiClient(server.url), { ...MEMBER, firstName: 'Lina', lastName: 'Viewer', dateOfBirth: '1990-04-05' });
    const scheduled = await apiClient(server.url).call('POST', '/admin/live/shows', {
      token: await adminToken(server),
      body: { title: 'Sunday live', accessLevel: 'free', startsAt: '2026-12-06T20:00:00Z', saveReplay: false },
    });
    show = scheduled.body.data.show;
    browser = await launchChromium();
    ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    page = await ctx.newPage();
    page.on('response', (r) => requests.push({ path: new URL(r.url()).pathname, status: r.status() }));
  }, 120_000);

  afterAll(async () => {
    pusher?.kill('SIGKILL');
    await browser?.close();
    await server?.close();
  });

  it('says "The show has not started" before the push', async () => {
    await signIn(page, server.url, MEMBER.email, MEMBER.password);
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    await page.goto(`${server.url}/live/${show.id}`);
    await expect.poll(() => page.getByTestId('live-message').textContent(), { timeout: T }).toBe('The show has not started');
  });

  it('plays the live show at the live edge, with the LIVE badge and no seek bar', async () => {
    pusher = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 120 });
    // The page asks again every 10 s before the show: it turns into the player by itself.
    const video = page.getByTestId('live-video');
    await video.waitFor({ timeout: 40_000 });
    // Playing, not only placed: hls.js starts at the live sync position, so the picture must advance from there.
    await page.waitForFunction(() => (document.querySelector('[data-testid=live-video]') as HTMLVideoElement).readyState >= 3, null, {
      timeout: 40_000,
    });
    const from = await page.evaluate(() => (document.querySelector('[data-testid=live-video]') as HTMLVideoElement).currentTime);
    await page.waitForFunction(
      (t0) => {
        const v = document.querySelector('[data-testid=live-video]') as HTMLVideoElement;
        return !v.paused && v.currentTime > t0 + 2;
      },
      from,
      { timeout: T },
    );
    expect(await page.getByRole('button', { name: 'Pause' }).isVisible()).toBe(true);
    const state = await page.evaluate(() => {
      const v = document.querySelector('[data-testid=live-video]') as HTMLVideoElement;
      const edge = v.seekable.length ? v.seekable.end(v.seekable.length - 1) : Number.NaN;
      return { engine: v.dataset.engine, controls: v.controls, behindEdge: edge - v.currentTime };
    });
    expect(state.engine).toBe('hls.js');
    expect(state.controls).toBe(false);
    // At the live edge: within the playlist's last segments (the window is 12 s; hls.js keeps 3 × 2 s back).
    expect(state.behindEdge).toBeGreaterThanOrEqual(0);
    expect(state.behindEdge).toBeLessThan(10);
    await expect.poll(() => page.getByTestId('live-badge').textContent()).toBe('LIVE');
    expect(await page.getByTestId('watermark').textContent()).toContain(MEMBER.email);
    const ok = (re: RegExp) => requests.filter((r) => re.test(r.path) && r.status === 200).length;
    expect(ok(/^\/api\/live\/hls\/[^/]+\/master\.m3u8$/)).toBeGreaterThan(0);
    expect(ok(/^\/api\/live\/hls\/[^/]+\/key$/)).toBeGreaterThan(0);
    expect(ok(/^\/api\/live\/hls\/[^/]+\/segments\/\d+p-seg_\d{5}\.ts$/)).toBeGreaterThan(0);
    await screenshot(page, 'live-01-playing');
  });

  it('says "The show has ended" once the push stops', async () => {
    pusher?.kill('SIGINT');
    const api = apiClient(server.url);
    const token = await adminToken(server);
    await expect
      .poll(
        async () => (await api.call('GET', '/live/shows', { token })).body.data.shows.find((s: { id: string }) => s.id === show.id)?.status,
        {
          timeout: T,
        },
      )
      .toBe('ended');
    await page.goto(`${server.url}/live/${show.id}`);
    await expect.poll(() => page.getByTestId('live-message').textContent(), { timeout: T }).toBe('The show has ended');
  });
});
