/**
 * The creator's numbers on the admin dashboard in Chromium against the real server: a member pays
 * for the monthly plan and watches a free video (a view and a watch-time report); the admin's
 * "Members per plan" card shows the per-plan table with the figures the API answers for this month
 * and the per-video table with the video's views and watch time; changing the months chooser
 * changes the rows; axe-core finds no WCAG A/AA violation on the page. And the player reports watch
 * time: a member plays the video in the browser and pauses, and the log holds the seconds played.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  approvedMember,
  billingTestKit,
  HASH,
  makeMp4,
  seedMember,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
  tmpDir,
  uploadTranscoded,
} from '../../api/test/support';
import { axeContext, axeViolations } from './axe';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 15_000;
let server: TestServer;
let browser: Browser;
let media: string;
let kit: Awaited<ReturnType<typeof billingTestKit>>;
let videoId: string;

/** The cells of each body row of the table captioned `caption`. */
async function rowsOf(page: Page, caption: string): Promise<string[][]> {
  const table = page.locator('table', { has: page.locator('caption', { hasText: caption }) });
  await table.waitFor({ state: 'visible', timeout: T });
  return table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

describe("the creator's numbers on the admin dashboard in Chromium", () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' } });
    browser = await launchChromium();
    media = tmpDir('creator-numbers-e2e-');
    kit = await billingTestKit(server);
    videoId = await uploadTranscoded(server.url, kit.admin, await makeMp4(media, 8), { title: 'Lakeside', accessLevel: 'free' });
    const member = await seedMember(server);
    const paid = await kit.submit(member, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(77) });
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
    expect((await kit.api.post(`/videos/${videoId}/view`, { duration: 12 }, member.token)).status).toBe(200);
    expect((await kit.api.post(`/videos/${videoId}/watch-time`, { seconds: 30 }, member.token)).body.data).toEqual({ recordedSeconds: 30 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  it('shows the per-plan and per-video tables with the figures the API answers, and passes axe', async () => {
    const ctx = await axeContext(browser, { viewport: { width: 1280, height: 900 } });
    await ctx.addInitScript(() => localStorage.setItem('ageVerified', 'true'));
    const page = await ctx.newPage();
    await signIn(page, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
    await page.waitForURL(`${server.url}/admin`, { timeout: T });

    const answer = (await kit.api.get('/admin/analytics?months=12', kit.admin)).body.data;
    const byPlan = await rowsOf(page, 'Members and revenue per plan and month (UTC)');
    expect(byPlan).toHaveLength(answer.byPlan.length);
    const month = answer.to as string;
    expect(byPlan.filter((r) => r[0] === month)).toEqual([
      [month, 'Monthly', '1', '1', '0', '0', '0', '0.0005 BTC'],
      [month, 'Annual', '0', '0', '0', '0', '–', '0 BTC'],
    ]);

    expect(await rowsOf(page, 'Views and watch time per video')).toEqual([['Lakeside', '1', '0:00:30']]);

    await page.getByLabel('Months').selectOption('3');
    await page.locator('caption', { hasText: 'per plan and month' }).waitFor({ timeout: T });
    await expect.poll(async () => (await rowsOf(page, 'Members and revenue per plan and month (UTC)')).length, { timeout: T }).toBe(6);

    expect(await axeViolations(page, 'admin with the creator numbers')).toEqual([]);
    await ctx.close();
  }, 60_000);

  it('the player reports the seconds played when the member pauses', async () => {
    const viewer = { email: 'watcher@example.test', password: 'member-password-1' };
    const { id } = await approvedMember(apiClient(server.url), viewer);
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await signIn(page, server.url, viewer.email, viewer.password);
    await page.waitForURL((url) => url.pathname !== '/login', { timeout: T });
    await page.goto(`${server.url}/videos/${videoId}`);
    await page.getByRole('button', { name: /Watch Now/ }).click();
    await page.getByRole('button', { name: 'Play', exact: true }).first().click();
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 3, null, { timeout: T });
    await page.getByRole('button', { name: 'Pause' }).click();
    const reported = async () =>
      (await server.ctx.store.readAll())
        .filter((e) => e.type === 'WatchTimeRecorded' && (e.data as { userId: string }).userId === id)
        .reduce((sum, e) => sum + (e.data as { seconds: number }).seconds, 0);
    await expect.poll(reported, { timeout: T }).toBeGreaterThanOrEqual(2);
    // The player counts whole seconds of playing: never more than was played.
    expect(await reported()).toBeLessThanOrEqual(
      Math.ceil(await page.evaluate(() => document.querySelector('video')?.currentTime ?? 0)) + 1,
    );
    await ctx.close();
  }, 60_000);
});
