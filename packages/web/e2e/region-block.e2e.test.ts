/**
 * The region-blocked denied state: behind a trusted proxy, a visitor from a blocked country sees
 * 'Content not available in your region' with 'Back to Videos' on a video page.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, makeMp4, postUpload, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, screenshot, WEB_DIST } from './browser';

describe('region block in Chromium', () => {
  let server: TestServer;
  let media: string;
  let videoId: string;

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', {
      env: { WEB_DIST, TRUST_PROXY: 'true' },
      site: { geo: { blockedRegions: ['US'], verificationRegions: [] } },
    });
    media = tmpDir('web-e2e-geo-');
    const token = (await apiClient(server.url).post('/auth/login', TEST_ADMIN)).body.data.token as string;
    const up = await postUpload(
      server.url,
      token,
      { title: 'Geo Test', model: 'Luna Hart', accessLevel: 'free' },
      { video: await makeMp4(media, 3) },
    );
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    videoId = up.body.data.videoId;
  });

  afterAll(async () => {
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  it('shows the region reason and Back to Videos', async () => {
    const browser = await launchChromium();
    try {
      const ctx = await ageVerifiedContext(browser, { extraHTTPHeaders: { 'X-Forwarded-For': '8.8.8.8' } });
      const page = await ctx.newPage();
      await page.goto(`${server.url}/videos/${videoId}`);
      await page.getByText('Content not available in your region').waitFor({ timeout: 15_000 });
      await page.getByRole('link', { name: 'Back to Videos' }).waitFor();
      expect(await page.evaluate(() => JSON.parse(localStorage.getItem('geoLocation') ?? '{}').blocked)).toBe(true);
      await screenshot(page, '24-region-blocked');
    } finally {
      await browser.close();
    }
  });
});
