/**
 * The README's screenshots (docs/images/*.png), taken from a seeded site in Debian's Chromium so
 * they cannot go stale (issue 28): the production web bundle on a real API whose clock is fixed,
 * four uploads with fixed titles, thumbnails and clips transcoded to their real HLS ladders, members
 * and payments seeded through the real routes, a browser clock fixed too, a fixed viewport. The
 * e2e suite (docs-screenshots.e2e.test.ts) takes them and compares them with the committed files;
 * `node scripts/docs-screenshots.mjs` writes them.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import {
  adminToken,
  apiClient,
  makeSizedClip,
  postUpload,
  seedMember,
  startTestServer,
  TEST_ADMIN,
  TestClock,
  type TestServer,
} from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, signIn, WEB_DIST } from './browser';

export const DOCS_IMAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/images');
export const DOCS_SCREENSHOTS = ['member-site', 'admin-dashboard'] as const;
export type DocsScreenshot = (typeof DOCS_SCREENSHOTS)[number];
/** The README's size: two screenshots side by side in a table. */
export const VIEWPORT = { width: 1200, height: 750 };
export const REGENERATE = 'node scripts/docs-screenshots.mjs';

/** The server's clock while seeding; each upload is a minute later, so "newest first" has one order. */
const SEEDED_AT = new Date('2026-11-20T18:00:00.000Z');
/** The browser's clock: the next morning, so every upload is still NEW (14 days). */
const VIEWED_AT = new Date('2026-11-21T09:00:00.000Z');

/** The catalog, oldest first (the home page shows the newest four, newest first). */
const VIDEOS = [
  { title: 'Golden Hour', accessLevel: 'free', clip: { width: 640, height: 360 }, colors: ['3a0d22', 'e91e63', '120409'] },
  { title: 'Silk and Shadows', accessLevel: 'premium', clip: { width: 1280, height: 720 }, colors: ['1b0f2e', 'b0417e', '0b0610'] },
  { title: 'Midnight Session', accessLevel: 'premium', clip: { width: 1920, height: 1080 }, colors: ['2e0b16', 'ff7aa8', '0d0307'] },
  { title: 'Rooftop Nights', accessLevel: 'vip', clip: { width: 3840, height: 2160 }, colors: ['101a33', 'e91e63', '05070d'] },
] as const;

/** A 640×360 still in the brand's colours, the same bytes every run (ffmpeg's `gradients` with a seed). */
function thumbnail(dir: string, index: number, colors: readonly string[]): string {
  const file = path.join(dir, `thumb-${index}.png`);
  const [c0, c1, c2] = colors;
  execFileSync(process.env.FFMPEG_PATH ?? 'ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `gradients=s=640x360:c0=0x${c0}:c1=0x${c1}:c2=0x${c2}:nb_colors=3:seed=${index + 7}`,
    '-frames:v',
    '1',
    file,
  ]);
  return file;
}

async function transcoded(server: TestServer, token: string, videoId: string): Promise<void> {
  for (;;) {
    const res = await apiClient(server.url).get(`/admin/videos/${videoId}`, token);
    const { transcode } = res.body.data as { transcode: { status: string; error?: string } };
    if (transcode.status === 'failed') throw new Error(`transcode failed: ${transcode.error}`);
    if (transcode.status === 'completed') return;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * A site as an operator's first week looks: four transcoded videos, members waiting for approval,
 * subscribers, payments waiting for the admin. Everything visible is fixed (titles, counts, dates).
 */
export async function seedDocsSite(media: string): Promise<TestServer> {
  ensureBuilt();
  const clock = new TestClock(new Date(SEEDED_AT));
  const server = await startTestServer('sqlite', {
    clock,
    env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' },
  });
  const admin = await adminToken(server);
  for (const [i, v] of VIDEOS.entries()) {
    clock.advance(60_000);
    const clip = await makeSizedClip(media, { ...v.clip, seconds: 1, kbps: 400 });
    const up = await postUpload(
      server.url,
      admin,
      { title: v.title, accessLevel: v.accessLevel, description: `${v.title}, in the seeded documentation site.` },
      { video: clip, thumbnail: thumbnail(media, i, v.colors) },
    );
    if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${up.body.error}`);
    await transcoded(server, admin, up.body.data.videoId);
  }
  const api = apiClient(server.url);
  const hash = (n: number) => `${'d0c5'.repeat(15)}${String(n).padStart(4, '0')}`;
  const pay = async (n: number, planType: 'monthly' | 'annual', verify: boolean) => {
    const m = await seedMember(server, { email: `member${n}@example.test` });
    const btcAmount = planType === 'monthly' ? '0.0005' : '0.005';
    const s = await api.post('/payments/submit-bitcoin-payment', { userId: m.id, planType, btcAmount, transactionHash: hash(n) }, m.token);
    if (s.status !== 201 && s.status !== 200) throw new Error(`payment failed: ${s.status} ${s.body.error}`);
    if (verify) {
      const v = await api.post(`/admin/payments/${s.body.data.paymentId}/verify`, undefined, admin);
      if (v.status !== 200) throw new Error(`verify failed: ${v.status} ${v.body.error}`);
    }
  };
  await pay(1, 'annual', true);
  await pay(2, 'monthly', true);
  await pay(3, 'monthly', true);
  await pay(4, 'annual', false);
  await pay(5, 'monthly', false);
  for (const n of [6, 7, 8]) await seedMember(server, { approved: false, email: `applicant${n}@example.test` });
  return server;
}

/** Waits until what the viewport shows is final: the page-loading class gone, images decoded, no request in flight. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.body.classList.contains('page-loading'), null, { timeout: 30_000 });
  await page.waitForFunction(
    () =>
      Array.from(document.images)
        .filter((img) => img.getBoundingClientRect().top < window.innerHeight)
        .every((img) => img.complete && img.naturalWidth > 0),
    null,
    { timeout: 30_000 },
  );
  await page.evaluate(() => document.fonts.ready);
}

const shoot = (page: Page) => page.screenshot({ animations: 'disabled', caret: 'hide', scale: 'css' });

/**
 * Both screenshots as PNG bytes: the visitor's home page, and the admin's dashboard after signing in.
 * `css` is added to every page (the test uses it to bring back an old look and see it caught).
 */
export async function takeDocsScreenshots(browser: Browser, server: TestServer, css?: string): Promise<Record<DocsScreenshot, Buffer>> {
  // The site's CSP refuses inline <style>; the old look is brought back only in such a test context.
  const ctx = await ageVerifiedContext(browser, { viewport: VIEWPORT, deviceScaleFactor: 1, bypassCSP: Boolean(css) });
  await ctx.clock.setFixedTime(VIEWED_AT);
  if (css) {
    await ctx.addInitScript((text) => {
      document.addEventListener('DOMContentLoaded', () => {
        const style = document.createElement('style');
        style.textContent = text;
        document.head.append(style);
      });
    }, css);
  }
  try {
    const page = await ctx.newPage();
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { name: 'Rooftop Nights' }).waitFor({ timeout: 30_000 });
    await settled(page);
    const memberSite = await shoot(page);

    await signIn(page, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
    await page.waitForURL(`${server.url}/admin`, { timeout: 30_000 });
    await page.getByText('Pending Approvals').first().waitFor({ timeout: 30_000 });
    await page.mouse.move(0, VIEWPORT.height - 1);
    await settled(page);
    const adminDashboard = await shoot(page);
    return { 'member-site': memberSite, 'admin-dashboard': adminDashboard };
  } finally {
    await ctx.close();
  }
}

export interface ScreenshotDiff {
  /** Pixels that differ beyond pixelmatch's colour threshold, anti-aliasing excluded. */
  differing: number;
  total: number;
  /** A PNG with the differing pixels in red (for the artifacts), or null when the sizes differ. */
  diffPng: Buffer | null;
  sizeMismatch: boolean;
}

/**
 * How far `actual` is from `expected`: pixelmatch with a colour threshold of 0.1 (its default) and
 * anti-aliased pixels left out, so font smoothing noise counts for nothing while a text colour
 * (white → black on the brand pink) or a moved block counts every pixel it touches.
 */
export function compareScreenshots(actual: Buffer, expected: Buffer): ScreenshotDiff {
  const a = PNG.sync.read(actual);
  const e = PNG.sync.read(expected);
  if (a.width !== e.width || a.height !== e.height) {
    return { differing: a.width * a.height, total: a.width * a.height, diffPng: null, sizeMismatch: true };
  }
  const diff = new PNG({ width: a.width, height: a.height });
  const differing = pixelmatch(a.data, e.data, diff.data, a.width, a.height, { threshold: 0.1, includeAA: false });
  return { differing, total: a.width * a.height, diffPng: PNG.sync.write(diff), sizeMismatch: false };
}

/**
 * At most this many differing pixels pass: a few stray glyph edges. The contrast bug of issue 28
 * (text on the brand pink white instead of black) differs in about 130 pixels on the dashboard,
 * where only the small "Admin" badge is pink, and in thousands on the home page.
 */
export const MAX_DIFFERING_PIXELS = 40;
