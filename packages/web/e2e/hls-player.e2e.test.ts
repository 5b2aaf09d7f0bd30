/**
 * The adaptive player in Chromium against the real server: a 16 s 1280×720 upload is transcoded by
 * the server's worker (real ffmpeg), and the secure player plays its HLS ladder through hls.js —
 * master playlist, AES key and encrypted segments fetched, `currentTime` advancing, a quality picked
 * in the menu actually switched to (hls.js's LEVEL_SWITCHED, shown on the element) and back to
 * "Auto", the seek preview tile shown on hovering the seek bar, and the existing protections
 * (watermark, blocked shortcuts, view counted on close) unchanged.
 */
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiClient, makeSizedClip, postUpload, TEST_ADMIN, type TestServer, tmpDir } from '../../api/test/support';
import { ageVerifiedContext, launchChromium, screenshot, signIn } from './browser';
import { playerServer } from './playerServer';

const MEMBER = { email: 'hls.viewer@example.test', password: 'member-password-1' };
const T = 30_000;

let server: TestServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let videoId: string;
const media = tmpDir('web-e2e-hls-');
const requests: { url: string; status: number }[] = [];
const pageErrors: string[] = [];

const videoState = () =>
  page.evaluate(() => {
    const v = document.querySelector('[data-testid=secure-video]') as HTMLVideoElement;
    return { time: v.currentTime, engine: v.dataset.engine, level: v.dataset.level };
  });

describe('adaptive HLS player in Chromium', () => {
  beforeAll(async () => {
    // The worker transcodes it (vitest's hook timeout is the limit, no timing assertion).
    ({ server, videoId } = await playerServer({
      media,
      member: { ...MEMBER, firstName: 'Hana', lastName: 'Viewer', dateOfBirth: '1991-02-03' },
      clip: { width: 1280, height: 720, seconds: 16, kbps: 1200 },
      video: { title: 'Adaptive Evening', duration: '0:16', accessLevel: 'free' },
    }));
    browser = await launchChromium();
    ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    page = await ctx.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('response', (r) => requests.push({ url: r.url(), status: r.status() }));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(media, { recursive: true, force: true });
  });

  it('this Chromium decodes H.264 and AAC through Media Source Extensions', async () => {
    await page.goto(`${server.url}/login`);
    const support = await page.evaluate(() => ({
      avc: MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"'),
      aac: MediaSource.isTypeSupported('audio/mp4; codecs="mp4a.40.2"'),
    }));
    expect(support).toEqual({ avc: true, aac: true });
  });

  it('plays the HLS ladder through hls.js: master, key and encrypted segments; currentTime advances', async () => {
    await signIn(page, server.url, MEMBER.email, MEMBER.password);
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    await page.goto(`${server.url}/videos/${videoId}`);
    await page.getByRole('button', { name: /Watch Now/ }).click({ timeout: T });
    const video = page.getByTestId('secure-video');
    await video.waitFor({ timeout: T });
    await page.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).dataset.engine, null, {
      timeout: T,
    });
    expect((await videoState()).engine).toBe('hls.js');
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime > 1, null, {
      timeout: T,
    });
    const ok = (re: RegExp) => requests.filter((r) => re.test(new URL(r.url).pathname) && r.status === 200);
    expect(ok(/^\/api\/hls\/[^/]+\/master\.m3u8$/).length).toBeGreaterThan(0);
    expect(ok(/^\/api\/hls\/[^/]+\/\d+p\/index\.m3u8$/).length).toBeGreaterThan(0);
    expect(ok(/^\/api\/hls\/[^/]+\/key$/).length).toBeGreaterThan(0);
    expect(ok(/^\/api\/hls\/[^/]+\/segments\/\d+p-seg_\d{5}\.ts$/).length).toBeGreaterThan(0);
    // The original file is not what plays.
    expect(requests.some((r) => r.url.includes('/api/media/videos/'))).toBe(false);
    // Protections unchanged.
    expect(await page.getByTestId('watermark').textContent()).toContain(MEMBER.email);
    const blocked = await page.evaluate(() => {
      const e = new KeyboardEvent('keydown', { key: 's', ctrlKey: true, bubbles: true, cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    });
    expect(blocked).toBe(true);
    await screenshot(page, 'hls-01-playing');
  });

  it('the quality menu lists "Auto" and the member\'s renditions; picking one switches to it', async () => {
    const select = page.getByRole('combobox', { name: 'Quality' });
    const options = await select.locator('option').allTextContents();
    expect(options[0]).toMatch(/^Auto/);
    // A free video for an approved member without a subscription: up to 720p.
    expect(options.slice(1)).toEqual(['720p', '480p', '360p']);
    for (const [label, height] of [
      ['360p', '360'],
      ['720p', '720'],
    ] as const) {
      await select.selectOption({ label });
      await page.waitForFunction(
        (h) => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).dataset.level === h,
        height,
        {
          timeout: T,
        },
      );
      const at = (await videoState()).time;
      await page.waitForFunction(
        (t) => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime > t + 0.5,
        at,
        {
          timeout: T,
        },
      );
    }
    expect(requests.some((r) => /\/segments\/360p-seg_\d{5}\.ts$/.test(new URL(r.url).pathname) && r.status === 200)).toBe(true);
    await select.selectOption({ index: 0 });
    expect(await select.inputValue()).toBe('-1');
  });

  it('hovering the seek bar shows the preview tile of that moment', async () => {
    const seek = page.getByRole('slider', { name: 'Seek' });
    const box = await seek.boundingBox();
    if (!box) throw new Error('no seek bar');
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2);
    const preview = page.getByTestId('seek-preview');
    await preview.waitFor({ state: 'visible', timeout: T });
    const image = await preview.locator('.seek-preview-image').evaluate((el) => getComputedStyle(el).backgroundImage);
    expect(image).toMatch(/\/api\/hls\/[^/]+\/sprites\/sprite-001\.jpg\?/);
    expect(await preview.textContent()).toMatch(/0:1[1-2]/);
    await screenshot(page, 'hls-02-seek-preview');
    await page.mouse.move(box.x + box.width / 2, box.y - 300);
    await preview.waitFor({ state: 'detached', timeout: T });
  });

  it('closing after more than 5 s of watching counts the view', async () => {
    await page.waitForFunction(
      () => Number.parseInt(document.querySelector('[data-testid=watched]')?.textContent?.split(':').pop() ?? '0', 10) > 5,
      null,
      {
        timeout: T,
      },
    );
    await page.getByRole('button', { name: 'Close player' }).click();
    const api = apiClient(server.url);
    for (;;) {
      if ((await api.get(`/videos/${videoId}`)).body.data.viewCount === 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(pageErrors).toEqual([]);
  });

  it('the admin library shows each transcode: a progress bar (or queued) while it runs, then the qualities', async () => {
    const adminCtx = await ageVerifiedContext(browser, { viewport: { width: 1400, height: 900 } });
    const admin = await adminCtx.newPage();
    admin.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(admin, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
    await admin.waitForURL((u) => u.pathname.startsWith('/admin'), { timeout: T });
    const row = (title: string) => admin.getByRole('row').filter({ hasText: title });
    await row('Adaptive Evening').getByText('720p · 480p · 360p').waitFor({ timeout: T });

    // A second upload: the library shows it queued or transcoding, and its qualities once done, without a reload.
    const clip = await makeSizedClip(media, { width: 1280, height: 720, seconds: 16, kbps: 1200 });
    const second = await postUpload(
      server.url,
      await adminToken(server),
      { title: 'Second Evening', duration: '0:16', accessLevel: 'premium' },
      { video: clip },
    );
    expect(second.status).toBe(201);
    await admin.reload();
    const inProgress = row('Second Evening').getByRole('progressbar', { name: 'Transcoding Second Evening' });
    const queued = row('Second Evening').getByText('Queued for transcoding');
    const done = row('Second Evening').getByText('720p · 480p · 360p');
    await inProgress.or(queued).or(done).first().waitFor({ timeout: T });
    await screenshot(admin, 'hls-03-admin-library');
    await done.waitFor({ timeout: 120_000 });
    await adminCtx.close();
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
