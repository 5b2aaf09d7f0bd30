/**
 * Copy that tells the truth (issue 40, Done when): in Chromium against the real server, a visitor, a
 * monthly and an annual member read the landing, /videos, a video's page, the plan cards and the
 * DMCA page, and find no claim the product does not keep:
 * - the site's quality caps are set low (monthly 360p, annual 480p) and the video is a 480p clip, so
 *   the claims are checked against the config, not against the default heights: nobody is promised
 *   4K (no plan plays 2160p), the monthly member reads the 480p rendition as the annual plan's;
 * - the qualities a video's page lists as the member's are exactly what their stream
 *   (`GET /api/videos/{id}/stream` → `qualities`) offers them;
 * - the DMCA page names the forensic watermark only on a server with FORENSIC_WATERMARK=true, and
 *   the visible overlay otherwise.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  apiClient,
  approvedMember,
  billingTestKit,
  HASH,
  makeSizedClip,
  startTestServer,
  type TestServer,
  tmpDir,
  uploadTranscoded,
} from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const T = 30_000;
const MEDIA = { maxHeightByPlan: { monthly: 360, annual: 480 }, freeMaxHeight: 144 };
/** The plans' quality sentence for MEDIA (@members/ui/entitlement planQualitySentence). */
const QUALITY_SENTENCE = 'Monthly plan: up to 360p. Annual plan: up to 480p.';
const FORENSIC = 'Every stream carries a personal watermark that identifies the account it was played from.';
const OVERLAY = "the player shows the member's e-mail address and account number over the picture";
/** Claims of 4K or of a quality the caps do not give: none may be read by anyone here. */
const UNKEPT = [/4K/, /ultra\s*HD/i, /ultra high definition/i, /2160p/, /1080p/];

let server: TestServer;
let browser: Browser;
let videoId: string;
const media = tmpDir('web-e2e-truthful-copy-');
const members: Record<'monthly' | 'annual', { email: string; password: string; token: string }> = {} as never;

async function subscribed(planType: 'monthly' | 'annual', n: number) {
  const kit = await billingTestKit(server);
  const member = await approvedMember(kit.api, { firstName: planType === 'annual' ? 'Anna' : 'Monty', lastName: 'Reader' });
  const paid = await kit.submit(
    { id: member.id, email: member.email, token: member.token },
    { planType, btcAmount: planType === 'annual' ? '0.005' : '0.0005', transactionHash: HASH(n) },
  );
  expect(paid.status).toBe(201);
  expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
  return { email: member.email, password: member.password, token: member.token };
}

/** The page's main text once `ready` is shown (its whole text, visually hidden parts included: stricter than what is seen). */
async function mainText(page: Page, ready: string | RegExp): Promise<string> {
  await page.getByText(ready).first().waitFor({ timeout: T });
  return (await page.locator('main').textContent()) ?? '';
}

/** The DMCA page with the forensic mark off (the default): the overlay sentence, not the personal watermark's. */
async function expectOverlaySentence(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/dmca`);
  const dmca = await mainText(page, 'Our content found elsewhere');
  expect(dmca).toContain(OVERLAY);
  expect(dmca).not.toContain(FORENSIC);
}

function expectNoUnkeptClaim(text: string, where: string): void {
  for (const claim of UNKEPT) expect(text, `${where} claims ${claim}`).not.toMatch(claim);
}

beforeAll(async () => {
  ensureBuilt();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  fs.rmSync(media, { recursive: true, force: true });
});

describe('every claim is true for the viewer reading it', () => {
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast', AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
      site: { media: MEDIA },
    });
    const clip = await makeSizedClip(media, { width: 854, height: 480, seconds: 2, kbps: 800 });
    videoId = await uploadTranscoded(server.url, await adminToken(server), clip, {
      title: 'Harbour Lights',
      duration: '0:02',
      accessLevel: 'premium',
    });
    members.monthly = await subscribed('monthly', 941);
    members.annual = await subscribed('annual', 942);
  }, 240_000);

  afterAll(async () => {
    await server?.close();
  });

  it('the site answers its quality caps and the forensic mark off, as configured', async () => {
    const site = (await apiClient(server.url).get('/site')).body.data;
    expect([site.media, site.forensicWatermark]).toEqual([MEDIA, false]);
    const video = (await apiClient(server.url).get(`/videos/${videoId}`)).body.data;
    expect(video.qualities).toEqual(['480p', '360p']);
  });

  it('a visitor: the landing and the plan cards claim only the configured caps, the DMCA page the overlay', async () => {
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    try {
      await page.goto(server.url);
      // The featured cards come from their own request: read the page once they are there too.
      await page.getByText('480p (annual plan)').first().waitFor({ timeout: 15_000 });
      const landing = await mainText(page, QUALITY_SENTENCE);
      expectNoUnkeptClaim(landing, 'the landing');
      // The featured card of the premium 480p clip, to a visitor: the monthly plan plays 360p, the annual 480p.
      expect(landing).toContain('480p (annual plan)');
      await screenshot(page, '40-truthful-landing');

      await page.goto(`${server.url}/subscription`);
      const plans = await mainText(page, 'Sign In to Subscribe');
      expectNoUnkeptClaim(plans, 'the plan cards');
      expect(plans).toContain('Video up to 360p');
      expect(plans).toContain('Video up to 480p');

      await expectOverlaySentence(page, server.url);
    } finally {
      await ctx.close();
    }
  });

  for (const plan of ['monthly', 'annual'] as const)
    it(`a ${plan} member: /videos, the video's page and the DMCA page say what their plan plays`, async () => {
      const member = members[plan];
      const stream = (await apiClient(server.url).get(`/videos/${videoId}/stream`, member.token)).body.data;
      const offered = stream.qualities as string[];
      expect(offered).toEqual(plan === 'annual' ? ['480p', '360p'] : ['360p']);
      const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
      const page = await ctx.newPage();
      try {
        await signIn(page, server.url, member.email, member.password);
        await page.waitForURL(`${server.url}/videos`, { timeout: T });
        // The landing is the visitors' page: a member is taken to /videos.
        await page.goto(server.url);
        await page.waitForURL(`${server.url}/videos`, { timeout: T });
        const badge = plan === 'annual' ? '480p' : '480p (annual plan)';
        const videos = await mainText(page, QUALITY_SENTENCE);
        await page.getByText(badge, { exact: true }).waitFor({ timeout: T });
        expectNoUnkeptClaim(videos, '/videos');

        await page.goto(`${server.url}/videos/${videoId}`);
        await page.getByRole('heading', { name: 'Harbour Lights' }).waitFor({ timeout: T });
        const qualities = page.locator('dt', { hasText: 'Qualities' }).locator('xpath=following-sibling::dd[1]');
        const expected = plan === 'annual' ? '480p, 360p' : '480p (annual plan), 360p';
        await expect.poll(() => qualities.textContent(), { timeout: T }).toBe(expected);
        const listed = ((await qualities.textContent()) ?? '').split(', ');
        // The member's own qualities (no plan named) are exactly the stream's; the others name the annual plan.
        expect(listed.filter((q) => !q.includes('plan'))).toEqual(offered);
        expect(listed.filter((q) => q.includes('plan')).every((q) => q.endsWith('(annual plan)'))).toBe(true);
        expectNoUnkeptClaim((await page.locator('main').textContent()) ?? '', "the video's page");
        await screenshot(page, `40-truthful-detail-${plan}`);

        await expectOverlaySentence(page, server.url);
      } finally {
        await ctx.close();
      }
    });
});

describe('the DMCA page with the forensic mark on', () => {
  let marked: TestServer;
  afterAll(async () => {
    await marked?.close();
  });

  it('names the personal watermark in every stream (FORENSIC_WATERMARK=true)', async () => {
    marked = await startTestServer('sqlite', { env: { WEB_DIST, FORENSIC_WATERMARK: 'true' } });
    expect((await apiClient(marked.url).get('/site')).body.data.forensicWatermark).toBe(true);
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    try {
      await page.goto(`${marked.url}/dmca`);
      const dmca = await mainText(page, FORENSIC);
      expect(dmca).not.toContain(OVERLAY);
    } finally {
      await ctx.close();
    }
  });
});
