/**
 * The renderer in Debian's Chromium against a real API server, with the preload API provided by
 * the dev bridge (same desktop service, same media and upload-queue modules as Electron's main
 * process): an admin signs in, chooses three generated videos (and a file that is not a video),
 * sees durations and thumbnails extracted locally before anything is sent, uploads them with
 * progress bars, and the member catalog lists the three with those durations and thumbnails, as
 * annual-only (set for the selected rows) and one with its release time (set on its row, issue 40);
 * the shared dashboard marks them "Annual only", and "Preview" opens a video's player page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { apiClient, makeTextFile, makeVideo, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './fixtures.js';
import { type LoopbackProxy, startLoopbackProxy } from './loopbackProxy.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-e2e-');
let server: TestServer;
let proxy: LoopbackProxy;
let bridge: HttpBridge;
let browser: Browser;
let page: Page;
const files: string[] = [];
const opened: string[] = [];

beforeAll(async () => {
  const [rendererDir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    (async () => {
      server = await startTestServer('sqlite');
      // ~1.5 MB/s towards the server: each noisy 4 s clip takes a visible moment.
      proxy = await startLoopbackProxy(new URL(server.url), { bytesPerSecond: 1_500_000 });
    })(),
  ]);
  const media = path.join(work, 'media');
  fs.mkdirSync(media);
  files.push(
    makeVideo(media, 'golden_hour.mp4', { seconds: 2, width: 320, height: 240, noise: true }),
    makeVideo(media, 'midnight-session.mp4', { seconds: 3, width: 320, height: 240, noise: true }),
    makeVideo(media, 'silk and shadows.mp4', { seconds: 4, width: 320, height: 240, noise: true }),
    makeTextFile(media, 'notes.txt'),
  );
  const session = createSession({ config: fileConfigStore(path.join(work, 'config')), secrets: memorySecretStore() });
  const service = createDesktopService({
    session,
    chooseFiles: async () => files,
    openExternal: async (url) => {
      opened.push(url);
    },
    thumbnailDir: path.join(work, 'thumbs'),
    queueOptions: { chunkSize: 256 * 1024, progressIntervalMs: 100 },
  });
  bridge = await startHttpBridge({ service, rendererDir: rendererDir as string });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
});

afterAll(async () => {
  await browser?.close();
  await bridge?.close();
  await proxy?.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('admin desktop renderer in Chromium (dev bridge)', () => {
  it('signs in, probes locally, uploads three videos with progress, and the catalog lists them', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(bridge.url);

    // 1. Sign in to the (throttled) server.
    await page.locator('#server-url').fill(proxy.url);
    await page.locator('#email').fill(TEST_ADMIN.email);
    await page.locator('#password').fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Bulk Upload' }).waitFor();

    // 2. Choose the files: each is probed and thumbnailed locally before anything is sent.
    await page.getByRole('button', { name: 'Choose files' }).click();
    const rows = page.getByTestId('bulk-row');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(4);
    await expect.poll(() => page.getByTestId('bulk-summary').textContent(), { timeout: 30_000 }).toBe('4 files · 3 videos · 1 not videos');
    const durations = await Promise.all(
      ['golden_hour.mp4', 'midnight-session.mp4', 'silk and shadows.mp4'].map((f) =>
        page.locator(`tr[data-file="${f}"] [data-testid=duration]`).textContent(),
      ),
    );
    expect(durations).toEqual(['0:02', '0:03', '0:04']);
    for (const f of ['golden_hour.mp4', 'midnight-session.mp4', 'silk and shadows.mp4']) {
      const img = page.getByAltText(`Thumbnail of ${f}`);
      await img.waitFor();
      expect(await img.getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
      // The <img> has a fixed size, so it is visible before its data: URL is decoded (naturalWidth 0 until then).
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth), { timeout: 5000 }).toBe(320);
    }
    await expect
      .poll(() => page.locator('tr[data-file="notes.txt"]').textContent(), { timeout: 20_000 })
      .toContain('Not a video — will not be sent');
    expect(await page.getByLabel('Title for golden_hour.mp4').inputValue()).toBe('Golden hour');
    expect(await page.getByLabel('Title for midnight-session.mp4').inputValue()).toBe('Midnight session');
    // Nothing has reached the server yet.
    expect((await apiClient(server.url).get('/videos')).body.data.total).toBe(0);

    // 3. Edit: one title by hand, model and access level for all selected rows at once.
    await page.getByLabel('Title for silk and shadows.mp4').fill('Silk and Shadows');
    const modelOptions = await page.getByLabel('Model for selected rows').locator('option').allTextContents();
    expect(modelOptions).toEqual(['Model…', ...server.site.models.map((m) => m.name), 'Other']);
    await page.getByLabel('Select all rows').check();
    await page.getByLabel('Model for selected rows').selectOption('Luna Hart');
    await page.getByLabel('Access level for selected rows').selectOption('free');
    await page.getByLabel('Tags for selected rows').fill('desktop, bulk');
    await page.getByLabel('Plans for selected rows').selectOption('annual');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    expect(await page.getByLabel('Model for golden_hour.mp4').inputValue()).toBe('Luna Hart');
    expect(await page.getByLabel('Annual plan only (behind the scenes): midnight-session.mp4').isChecked()).toBe(true);
    // One row's release time, in the console's time zone (yesterday: released already, as of then).
    const yesterday = new Date(Date.now() - 86_400_000);
    yesterday.setHours(10, 0, 0, 0);
    const localValue = `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-${String(yesterday.getDate()).padStart(2, '0')}T10:00`;
    await page.getByLabel('Release at for golden_hour.mp4').fill(localValue);

    // 4. Upload, recording what the progress bars and badges show on the way.
    await page.evaluate(() => {
      const w = window as unknown as { seen: { bars: Array<[string, number, number]>; speeds: string[]; maxUploading: number } };
      w.seen = { bars: [], speeds: [], maxUploading: 0 };
      const record = () => {
        for (const p of document.querySelectorAll('progress')) w.seen.bars.push([p.getAttribute('aria-label') ?? '', p.value, p.max]);
        for (const t of document.querySelectorAll('.progress-text'))
          if (/\/s/.test(t.textContent ?? '')) w.seen.speeds.push(t.textContent ?? '');
        w.seen.maxUploading = Math.max(w.seen.maxUploading, document.querySelectorAll('[data-state="uploading"]').length);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.getByRole('button', { name: 'Upload 3 videos' }).click();
    await expect.poll(() => page.locator('.bulk-video-id').count(), { timeout: 60_000 }).toBe(3);
    const seen = await page.evaluate(
      () => (window as unknown as { seen: { bars: Array<[string, number, number]>; speeds: string[]; maxUploading: number } }).seen,
    );
    for (const f of ['golden_hour.mp4', 'midnight-session.mp4', 'silk and shadows.mp4']) {
      const mid = seen.bars.filter(([label, v, max]) => label === `Upload progress for ${f}` && v > 0 && v < max);
      expect(mid.length, `progress seen for ${f}`).toBeGreaterThan(0);
    }
    expect(seen.bars.some(([label, v, max]) => label === 'Overall upload progress' && v > 0 && v < max)).toBe(true);
    expect(seen.speeds.length).toBeGreaterThan(0);
    expect(seen.maxUploading).toBeGreaterThan(0);
    expect(seen.maxUploading).toBeLessThanOrEqual(2);
    const shownIds = (await page.locator('.bulk-video-id').allTextContents()).map((t) => t.replace('Video ID: ', ''));

    // 5. The member catalog lists the three, with the durations probed locally and thumbnails.
    const list = await apiClient(server.url).get('/videos?pageSize=10');
    const videos = list.body.data.videos as Array<{
      id: string;
      title: string;
      duration: number;
      thumbnailPath: string;
      modelName: string;
      accessLevel: string;
      tags: string[];
      exclusiveTo: string | null;
      publishAt: string | null;
    }>;
    const byTitle = Object.fromEntries(videos.map((v) => [v.title, v]));
    expect(Object.keys(byTitle).sort()).toEqual(['Golden hour', 'Midnight session', 'Silk and Shadows']);
    expect([byTitle['Golden hour']?.duration, byTitle['Midnight session']?.duration, byTitle['Silk and Shadows']?.duration]).toEqual([
      2, 3, 4,
    ]);
    expect(videos.map((v) => v.id).sort()).toEqual([...shownIds].sort());
    for (const v of videos) {
      expect(v).toMatchObject({ modelName: 'Luna Hart', accessLevel: 'free', tags: ['desktop', 'bulk'], exclusiveTo: 'annual' });
      const thumb = await fetch(new URL(v.thumbnailPath, server.url));
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    }
    expect(Date.parse(byTitle['Golden hour']?.publishAt as string)).toBe(yesterday.getTime());
    expect([byTitle['Midnight session']?.publishAt, byTitle['Silk and Shadows']?.publishAt]).toEqual([null, null]);
    expect(pageErrors).toEqual([]);
  });

  it("shows 'Access Denied' to a member", async () => {
    const email = 'member-e2e@example.test';
    await apiClient(server.url).post('/auth/register', {
      email,
      password: 'member-password-1',
      firstName: 'Mem',
      lastName: 'Ber',
      dateOfBirth: '1990-01-01',
      agreeToTerms: true,
    });
    await page.getByRole('button', { name: 'Sign Out' }).click();
    // The server URL is remembered from the first sign-in.
    expect(await page.locator('#server-url').inputValue()).toBe(proxy.url);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill('member-password-1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Access Denied' }).waitFor();
    expect(await page.locator('body').textContent()).toContain("You don't have permission to access this page.");
    expect(await page.locator('body').textContent()).toContain(`Logged in as: ${email} (Role: member)`);
    await page.getByRole('button', { name: 'Sign in with another account' }).click();
    expect(await page.locator('#server-url').inputValue()).toBe(proxy.url);
  });

  it('renders the shared dashboard from @members/ui', async () => {
    await page.locator('#email').fill(TEST_ADMIN.email);
    await page.locator('#password').fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('button', { name: 'Dashboard' }).click();
    await page.getByText('Pending Approvals', { exact: true }).waitFor();
    for (const label of ['Active Members', 'Total Revenue', 'Pending Payments'])
      await page.getByText(label, { exact: true }).first().waitFor();
    // In the pending approvals table (the member search lists the same member again).
    await page
      .getByRole('table', { name: /Pending User Approvals/ })
      .getByText('member-e2e@example.test')
      .waitFor();
    // The library marks the behind-the-scenes videos; "Preview" opens one's player page on the server.
    const row = page.getByRole('row').filter({ hasText: 'Silk and Shadows' });
    await row.getByText('Annual only', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Preview Silk and Shadows' }).click();
    const id = ((await apiClient(server.url).get('/videos?pageSize=10')).body.data.videos as Array<{ id: string; title: string }>).find(
      (v) => v.title === 'Silk and Shadows',
    )?.id;
    await expect.poll(() => opened).toEqual([`${proxy.url}/videos/${id}`]);
  });
});
