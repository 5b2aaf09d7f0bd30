/**
 * Issue 40's screens in Chromium against the real server (items 1, 2 and 5): a monthly member sees a
 * behind-the-scenes video locked with the "Annual plan" badge and an upgrade link (also under the
 * 'Behind the Scenes' tile), its detail page refuses with the annual plan's message and links to the
 * annual plan, and a video released a day ago is "Coming to your plan on {date}" (the monthly plan
 * waits seven days here); an annual member plays the behind-the-scenes video; the admin uploads a
 * video through the form as annual-only and scheduled (the browser in Kolkata's time zone), sees the
 * "Scheduled" and "Annual only" markers, clears both in the Release form, and previews an unpublished
 * VIP video in the player without a subscription; a video released while a member's catalog is open
 * appears in it when the window regains focus, without a reload. axe-core checks the screens that changed.
 */
import fs from 'node:fs';
import { ACCESS_MESSAGES, formatReleaseDate } from '@members/ui/access';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  apiClient,
  approvedMember,
  billingTestKit,
  HASH,
  makeMp4,
  postUpload,
  startTestServer,
  TEST_ADMIN,
  TestClock,
  type TestServer,
  tmpDir,
  uploadTranscoded,
} from '../../api/test/support';
import { axeViolations } from './axe';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 20_000;
const DAY_MS = 86_400_000;
/** The monthly plan gets a scheduled video a week after its release; the annual plan at once. */
const MONTHLY_DELAY_DAYS = 7;
/** The server's clock: the test moves it past a release time. */
const clock = new TestClock(new Date());

describe('annual-only videos, scheduled releases and the admin preview in the browser', () => {
  let server: TestServer;
  let browser: Browser;
  let media: string;
  let token: string;
  let diaryId: string;
  let earlyId: string;
  let earlyPublishAt: string;
  let vaultId: string;
  let clip: string;

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', {
      env: {
        WEB_DIST,
        AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000',
        TRANSCODE_CONCURRENCY: '1',
        TRANSCODE_PRESET: 'ultrafast',
        // The release job's tick: a schedule whose time the test clock passes is released at once.
        RELEASES_TICK_MS: '200',
      },
      site: { releases: { delayDaysByPlan: { monthly: MONTHLY_DELAY_DAYS, annual: 0 }, freeDelayDays: MONTHLY_DELAY_DAYS } },
      clock,
    });
    browser = await launchChromium();
    media = tmpDir('web-e2e-releases-');
    token = await adminToken(server);
    clip = await makeMp4(media, 3);
    diaryId = await uploadTranscoded(server.url, token, clip, { title: 'Studio Diary', accessLevel: 'premium', exclusiveTo: 'annual' });
    earlyPublishAt = new Date(Date.now() - DAY_MS).toISOString();
    // Listed, not played: no need to wait for its transcode.
    const early = await postUpload(
      server.url,
      token,
      { title: 'Early Cut', accessLevel: 'premium', publishAt: earlyPublishAt },
      { video: clip },
    );
    expect(early.status, JSON.stringify(early.body)).toBe(201);
    earlyId = early.body.data.videoId as string;
    vaultId = await uploadTranscoded(server.url, token, clip, { title: 'Vault Premiere', accessLevel: 'vip' });
    const hidden = await apiClient(server.url).put(`/admin/videos/${vaultId}`, { published: false }, token);
    expect(hidden.status, JSON.stringify(hidden.body)).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  async function context(timezoneId?: string): Promise<BrowserContext> {
    // axe-core is injected as an inline script: the page's CSP is bypassed (as in accessibility.e2e.test.ts).
    return ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 }, timezoneId, bypassCSP: true });
  }

  async function subscribedMember(planType: 'monthly' | 'annual', n: number) {
    const kit = await billingTestKit(server);
    const member = await approvedMember(kit.api, { firstName: planType === 'annual' ? 'Annie' : 'Monty', lastName: 'Member' });
    const paid = await kit.submit(
      { id: member.id, email: member.email, token: member.token },
      { planType, btcAmount: planType === 'annual' ? '0.005' : '0.0005', transactionHash: HASH(n) },
    );
    expect(paid.status).toBe(201);
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
    return member;
  }

  async function signedIn(ctx: BrowserContext, email: string, password: string): Promise<Page> {
    const page = await ctx.newPage();
    await signIn(page, server.url, email, password);
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    return page;
  }

  const card = (page: Page, title: string) => page.locator('.video-card', { hasText: title });

  async function playsInThePlayer(page: Page) {
    await page.getByRole('button', { name: /Watch Now/ }).click({ timeout: T });
    await page.getByTestId('secure-video').waitFor({ timeout: T });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime > 1, null, {
      timeout: T,
    });
  }

  it('a monthly member: the annual-only video locked with its badge and an upgrade link, the scheduled one coming later', async () => {
    const member = await subscribedMember('monthly', 4001);
    const ctx = await context();
    try {
      const page = await signedIn(ctx, member.email, member.password);
      await page.goto(`${server.url}/videos`);
      const diary = card(page, 'Studio Diary');
      await diary.getByText('Annual plan', { exact: true }).waitFor({ timeout: T });
      expect(await diary.getByText('PREMIUM', { exact: true }).count()).toBe(0);
      expect(await diary.getByRole('link', { name: /Upgrade to the annual plan/ }).getAttribute('href')).toBe('/subscription?plan=annual');
      const availableAt = new Date(Date.parse(earlyPublishAt) + MONTHLY_DELAY_DAYS * DAY_MS).toISOString();
      await card(page, 'Early Cut')
        .getByText(`Coming to your plan on ${formatReleaseDate(availableAt)}`, { exact: true })
        .waitFor({ timeout: T });
      expect(await card(page, 'Vault Premiere').count()).toBe(0);
      expect(await axeViolations(page, '/videos [monthly]')).toEqual([]);

      // The 'Behind the Scenes' tile lists the annual-only videos, and only them.
      await page.getByRole('button', { name: /Behind the Scenes/ }).click();
      await page.getByRole('heading', { name: 'Behind the Scenes videos' }).waitFor({ timeout: T });
      await page.waitForURL((u) => u.searchParams.get('exclusiveTo') === 'annual', { timeout: T });
      await card(page, 'Early Cut').waitFor({ state: 'detached', timeout: T });
      expect(await page.locator('.video-card .video-title').allTextContents()).toEqual(['Studio Diary']);

      // The detail page: the decision's refusal and an upgrade link to the annual plan.
      await page.goto(`${server.url}/videos/${diaryId}`);
      await page.getByText(ACCESS_MESSAGES.annual_plan_required, { exact: true }).waitFor({ timeout: T });
      expect(await page.getByRole('button', { name: /Watch Now/ }).count()).toBe(0);
      expect(await axeViolations(page, '/videos/:id [monthly, annual only]')).toEqual([]);
      const stream = await apiClient(server.url).get(`/videos/${diaryId}/stream`, member.token);
      expect(stream.status).toBe(403);
      expect((stream.body as { code?: string }).code).toBe('access.annual_plan_required');

      await page.goto(`${server.url}/videos/${earlyId}`);
      await page
        .getByText(`Coming to your plan on ${formatReleaseDate(availableAt)}`, { exact: true })
        .first()
        .waitFor({ timeout: T });
      expect(await page.getByRole('button', { name: /Watch Now/ }).count()).toBe(0);

      await page.goto(`${server.url}/videos/${diaryId}`);
      await page.getByRole('link', { name: 'Upgrade to Annual' }).click();
      await page.waitForURL((u) => u.pathname === '/subscription' && u.searchParams.get('plan') === 'annual', { timeout: T });
      const annual = page.locator('article.plan-card[aria-current="true"]');
      await annual.getByRole('heading', { name: 'Annual Premium' }).waitFor({ timeout: T });
      // The plan card's line leads to those videos.
      expect(await annual.getByRole('link', { name: 'Exclusive behind-the-scenes' }).getAttribute('href')).toBe(
        '/videos?exclusiveTo=annual',
      );
      expect(await axeViolations(page, '/subscription?plan=annual')).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('an annual member plays the behind-the-scenes video', async () => {
    const member = await subscribedMember('annual', 4002);
    const ctx = await context();
    try {
      const page = await signedIn(ctx, member.email, member.password);
      await page.goto(`${server.url}/videos`);
      const diary = card(page, 'Studio Diary');
      await diary.getByText('PREMIUM', { exact: true }).waitFor({ timeout: T });
      expect(await diary.getByText('Annual plan', { exact: true }).count()).toBe(0);
      await page.goto(`${server.url}/videos/${diaryId}`);
      await playsInThePlayer(page);
    } finally {
      await ctx.close();
    }
  });

  it('the admin schedules an annual-only upload through the form, sees the markers, clears them, and previews an unpublished VIP video', async () => {
    const ctx = await context('Asia/Kolkata');
    try {
      const page = await signedIn(ctx, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.waitForURL(`${server.url}/admin`, { timeout: T });
      await page.getByRole('heading', { name: 'Video Library' }).waitFor({ timeout: T });

      // Three days ahead at 10:00 in Kolkata (UTC+05:30, no summer time).
      const day = new Date(Date.now() + 3 * DAY_MS + 5.5 * 3_600_000).toISOString().slice(0, 10);
      const localValue = `${day}T10:00`;
      await page.getByLabel('Title *').fill('Set Visit');
      await page.getByLabel('Video File *').setInputFiles(await makeMp4(media, 2));
      await page.getByLabel('Annual plan only (behind the scenes)').check();
      await page.getByLabel('Release at').fill(localValue);
      await page.getByRole('button', { name: 'Upload Video' }).click();
      await page.getByText(/Video "Set Visit" uploaded successfully!/).waitFor({ timeout: 60_000 });

      const listed = (await apiClient(server.url).get('/admin/videos?pageSize=100', token)).body.data.videos as {
        id: string;
        title: string;
        exclusiveTo: string | null;
        publishAt: string | null;
      }[];
      const visit = listed.find((v) => v.title === 'Set Visit');
      expect(visit?.exclusiveTo).toBe('annual');
      expect(Date.parse(visit?.publishAt as string)).toBe(Date.parse(`${localValue}:00+05:30`));
      // Before its release no member finds it.
      expect((await apiClient(server.url).get(`/videos/${visit?.id}`)).status).toBe(404);

      const row = page.getByRole('row').filter({ hasText: 'Set Visit' });
      const when = new Date(`${localValue}:00+05:30`).toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: 'Asia/Kolkata',
      });
      await row.getByText(`Scheduled: ${when}, 10:00`, { exact: true }).waitFor({ timeout: T });
      await row.getByText('Annual only', { exact: true }).waitFor({ timeout: T });

      // The Release form shows what is set, and clears both.
      await row.getByRole('button', { name: 'Release of Set Visit' }).click();
      const form = page.getByRole('region', { name: 'Release of "Set Visit"' });
      expect(await form.getByLabel('Annual plan only (behind the scenes)').isChecked()).toBe(true);
      expect(await form.getByLabel('Release at').inputValue()).toBe(localValue);
      expect(await axeViolations(page, '/admin [release form]')).toEqual([]);
      await form.getByLabel('Annual plan only (behind the scenes)').uncheck();
      await form.getByRole('button', { name: 'Clear release time' }).click();
      await form.getByRole('button', { name: 'Save release' }).click();
      await page.getByText('Release of "Set Visit" saved').waitFor({ timeout: T });
      await row.getByText('Annual only', { exact: true }).waitFor({ state: 'detached', timeout: T });
      expect(await row.getByText(/^Scheduled:/).count()).toBe(0);
      const saved = (await apiClient(server.url).get(`/admin/videos/${visit?.id}`, token)).body.data;
      expect([saved.exclusiveTo, saved.publishAt]).toEqual([null, null]);

      // Preview: the admin, with no subscription, plays an unpublished VIP video.
      const vault = page.getByRole('row').filter({ hasText: 'Vault Premiere' });
      await vault.getByText('Unpublished', { exact: true }).waitFor({ timeout: T });
      await vault.getByRole('link', { name: 'Preview Vault Premiere' }).click();
      await page.waitForURL(`${server.url}/videos/${vaultId}`, { timeout: T });
      await playsInThePlayer(page);
    } finally {
      await ctx.close();
    }
  });

  it('a video released while a member’s catalog is open appears when the window regains focus, without a reload', async () => {
    const member = await subscribedMember('annual', 4003);
    const ctx = await context();
    try {
      const page = await signedIn(ctx, member.email, member.password);
      await page.goto(`${server.url}/videos`);
      await card(page, 'Studio Diary').waitFor({ timeout: T });
      let loads = 0;
      page.on('load', () => {
        loads += 1;
      });

      const publishAt = new Date(clock.now().getTime() + 60_000).toISOString();
      const up = await postUpload(server.url, token, { title: 'Fresh Release', accessLevel: 'free', publishAt }, { video: clip });
      expect(up.status, JSON.stringify(up.body)).toBe(201);
      const listed = async () =>
        ((await apiClient(server.url).get('/videos?pageSize=100')).body.data.videos as { title: string }[]).map((v) => v.title);
      expect(await listed()).not.toContain('Fresh Release');
      // Its time comes: the leader's release job publishes it at its next tick.
      clock.advance(61_000);
      await expect.poll(listed, { timeout: T, interval: 250 }).toContain('Fresh Release');
      expect(await card(page, 'Fresh Release').count()).toBe(0);

      // The member comes back to the tab: the catalog asks again.
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange', { bubbles: true })));
      await card(page, 'Fresh Release').waitFor({ timeout: T });
      expect(loads).toBe(0);
    } finally {
      await ctx.close();
    }
  });
});
