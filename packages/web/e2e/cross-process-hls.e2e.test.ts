/**
 * Media beyond one machine, in a browser (issue 20 item 6): on PostgreSQL and the tests' Ceph RGW,
 * two API processes with their own DATA_DIRs (no shared disk) on one MEDIA_STORE bucket, with
 * TRANSCODE_IN_SERVER=false, and one token runner (`pnpm cli transcode-runner --server URL`, holding
 * only its RUNNER_TOKEN: it reads and writes the bucket through the API's presigned URLs). The admin
 * uploads through process A; the runner transcodes it into the bucket; a subscriber signed in on
 * process B's site opens the video in Chromium and hls.js (not the progressive fallback) plays it: the signed playlists, the AES key and the encrypted segments
 * all come from B, `currentTime` passes a few seconds, and the console stays clean.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  approvedMember,
  bucketKeys,
  type ChildServer,
  filesUnder,
  freshBucket,
  freshStore,
  killAll,
  launchServer,
  makeSizedClip,
  mediaKinds,
  postUpload,
  type Runner,
  runCli,
  startTokenRunner,
  TEST_ADMIN,
  TEST_DATABASE_URL,
  tmpDir,
} from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const MEMBER = { email: 'across.viewer@example.test', password: 'member-password-1' };
const T = 30_000;

if (!TEST_DATABASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set in CI');
// mediaKinds() throws when CI=true and the gateway is missing: this suite fails there, never skips.
const available = Boolean(TEST_DATABASE_URL) && mediaKinds().includes('s3');

describe.runIf(available)('hls.js in Chromium plays a video uploaded through the other API process [postgres, s3]', () => {
  let store: Awaited<ReturnType<typeof freshStore>>;
  let bucket: Awaited<ReturnType<typeof freshBucket>>;
  let a: ChildServer;
  let b: ChildServer;
  let runner: Runner;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let videoId: string;
  const dirs = { b: tmpDir('e2e-across-b-'), runner: tmpDir('e2e-across-runner-'), media: tmpDir('e2e-across-media-') };
  const responses: { url: string; status: number }[] = [];
  const consoleErrors: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    store = await freshStore('postgres');
    bucket = await freshBucket('media');
    const common = {
      ...bucket.env,
      DATABASE_URL: store.env.DATABASE_URL as string,
      TRANSCODE_IN_SERVER: 'false',
      TRANSCODE_CONCURRENCY: '1',
      TRANSCODE_PRESET: 'ultrafast',
      WEB_DIST,
      // One value for every process (each would otherwise generate its own into its DATA_DIR).
      MFA_KEY_SECRET: 'e2e-across-mfa-key-e2e-across-mfa-key-0123456789',
    };
    a = await launchServer({ ...common, DATA_DIR: store.dataDir });
    b = await launchServer({ ...common, DATA_DIR: dirs.b });
    // A token made as the operator makes one; the runner talks to process A.
    const made = await runCli({ ...common, DATA_DIR: store.dataDir }, ['runners', 'token', 'create', 'e2e-across']);
    const token = /rnr_[A-Za-z0-9_-]{43}/.exec(made.out)?.[0];
    expect(token, made.out).toBeDefined();
    runner = await startTokenRunner(a.url, token as string, dirs.runner);

    // A subscriber, made through process A's routes: registered, approved, paid and verified.
    const api = apiClient(a.url);
    const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
    const member = await approvedMember(api, {
      email: MEMBER.email,
      password: MEMBER.password,
      firstName: 'Ada',
      lastName: 'Across',
      dateOfBirth: '1990-04-05',
    });
    const paid = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId: member.id, planType: 'annual', btcAmount: '0.005' },
      member.token,
    );
    expect(paid.status, JSON.stringify(paid.body)).toBeLessThan(300);
    const pending = await api.get('/admin/pending-payments', admin);
    const paymentId = (pending.body.data.payments ?? pending.body.data)[0].id as string;
    expect((await api.post(`/admin/payments/${paymentId}/verify`, undefined, admin)).status).toBe(200);

    // The admin uploads through A; only the runner transcodes (the API processes do not).
    const clip = await makeSizedClip(dirs.media, { width: 1280, height: 720, seconds: 12, kbps: 1200 });
    const up = await postUpload(a.url, admin, { title: 'Across Processes', duration: '0:12', accessLevel: 'premium' }, { video: clip });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    videoId = up.body.data.videoId as string;
    for (;;) {
      const { transcode } = (await api.get(`/admin/videos/${videoId}`, admin)).body.data;
      if (transcode.status === 'failed') throw new Error(`transcode failed: ${transcode.error}`);
      if (transcode.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    // The runner records the completion (what the API shows) and then, its scratch folder removed,
    // logs the job's end: on a loaded machine the API answers 'completed' before that line arrives
    // (round 5 of 5 of the flake finder). Wait for the line; the bound only catches a runner that
    // never logs it.
    const ended = new RegExp(`^transcode of ${videoId} completed`, 'm');
    for (let waited = 0; !ended.test(runner.output()) && waited < 60_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(runner.output()).toMatch(ended);

    browser = await launchChromium();
    ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    await collectCspViolations(ctx, cspViolations);
    page = await ctx.newPage();
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`console: ${m.text()}`);
    });
    page.on('response', (r) => responses.push({ url: r.url(), status: r.status() }));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await killAll([runner, a, b]);
    await bucket?.cleanup();
    await store?.cleanup();
    for (const d of Object.values(dirs)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("the bucket holds the runner's ladder, and neither API process nor the runner keeps a file of the video", async () => {
    const keys = await bucketKeys(bucket.bucket, `media/videos/${videoId}/`);
    expect(keys).toEqual(expect.arrayContaining([`media/videos/${videoId}/video.mp4`, `media/videos/${videoId}/hls/master.m3u8`]));
    expect(keys.some((k) => /\/hls\/720p\/seg_\d{5}\.ts$/.test(k))).toBe(true);
    for (const dir of [store.dataDir, dirs.b]) expect(filesUnder(path.join(dir, 'media'))).toEqual([]);
    expect(filesUnder(path.join(dirs.runner, 'scratch'))).toEqual([]);
  });

  it("a subscriber on B's site plays it through hls.js: playlists, key and segments from B, currentTime advancing, no console error", async () => {
    await signIn(page, b.url, MEMBER.email, MEMBER.password);
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    await page.goto(`${b.url}/videos/${videoId}`);
    await page.getByRole('button', { name: /Watch Now/ }).click({ timeout: T });
    await page.getByTestId('secure-video').waitFor({ timeout: T });
    await page.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).dataset.engine, null, {
      timeout: T,
    });
    const engine = await page.evaluate(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).dataset.engine);
    expect(engine).toBe('hls.js');
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime > 3, null, {
      timeout: T,
    });
    await screenshot(page, 'hls-across-processes');

    const from = (origin: string, re: RegExp) =>
      responses.filter((r) => r.url.startsWith(`${origin}/`) && re.test(new URL(r.url).pathname) && r.status === 200);
    const hls = '^/api/hls/[^/]+';
    expect(from(b.url, new RegExp(`${hls}/master\\.m3u8$`)).length).toBeGreaterThan(0);
    expect(from(b.url, new RegExp(`${hls}/\\d+p/index\\.m3u8$`)).length).toBeGreaterThan(0);
    expect(from(b.url, new RegExp(`${hls}/key$`)).length).toBeGreaterThan(0);
    expect(from(b.url, new RegExp(`${hls}/segments/\\d+p-seg_\\d{5}\\.ts$`)).length).toBeGreaterThanOrEqual(2);
    // Nothing from A, no progressive fallback, and no request the server refused.
    expect(responses.filter((r) => r.url.startsWith(`${a.url}/`))).toEqual([]);
    expect(responses.some((r) => r.url.includes('/api/media/videos/'))).toBe(false);
    expect(responses.filter((r) => r.url.includes('/api/hls/') && r.status !== 200)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
