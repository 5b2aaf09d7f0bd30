/**
 * The whole member journey in Chromium against the real server (production build, fresh SQLite
 * store): age gate, registration checks, pending approval, admin approval, role redirects, catalog
 * and denied states, Bitcoin purchase, admin verification, the secure player, view counting,
 * cancel/reactivate, error pages and logout. Steps share one server and run in order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { maxBirthDate } from '@members/ui/registration';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  makeImage,
  makeMp4,
  postUpload,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
  tmpDir,
  waitTranscoded,
} from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const MEMBER = { firstName: 'Mia', lastName: 'Tester', email: 'mia.tester@example.test', password: 'member-password-1', dob: '1990-04-12' };
const TX_HASH = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const T = 15_000;

let server: TestServer;
let browser: Browser;
let base: string;
let premiumVideoId: string;
let uploaderToken: string;
let freeVideoId: string;
let media: string;
let adminCtx: BrowserContext;
let memberCtx: BrowserContext;
let admin: Page;
let member: Page;

async function see(page: Page, text: string | RegExp, timeout = T) {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout });
}

/** Uncaught errors in any page of the journey (a React crash would show up here). */
const pageErrors: string[] = [];
/** Content-Security-Policy violations in any page of the journey (the policy must break nothing). */
const cspViolations: string[] = [];

/** A context that has passed the age gate already. */
async function verifiedContext(opts: { timezoneId?: string } = {}): Promise<BrowserContext> {
  const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 }, ...opts });
  ctx.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(`${p.url()}: ${e.message}`)));
  await collectCspViolations(ctx, cspViolations);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return ctx;
}

describe('member journey in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' } });
    base = server.url;
    browser = await launchChromium();
    media = tmpDir('web-e2e-media-');
    const api = apiClient(base);
    const adminLogin = await api.post('/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password });
    const token = adminLogin.body.data.token as string;
    uploaderToken = token;
    const mp4 = await makeMp4(media, 20);
    const thumb = await makeImage(media, 'jpg');
    const premium = await postUpload(
      base,
      token,
      {
        title: 'Velvet Premiere',
        description: 'A premium test scene.',
        model: 'Luna Hart',
        duration: '0:20',
        accessLevel: 'premium',
        tags: 'night, city',
        categories: 'Solo',
      },
      { video: mp4, thumbnail: thumb },
    );
    expect(premium.status, JSON.stringify(premium.body)).toBe(201);
    premiumVideoId = premium.body.data.videoId;
    const free = await postUpload(
      base,
      token,
      { title: 'Free Teaser', model: 'Luna Hart', duration: '0:20', accessLevel: 'free' },
      { video: mp4 },
    );
    expect(free.status, JSON.stringify(free.body)).toBe(201);
    freeVideoId = free.body.data.videoId;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  it('age gate: EXIT SITE leaves, ENTER SITE is remembered', async () => {
    const ctx = await browser.newContext();
    await collectCspViolations(ctx, cspViolations);
    await ctx.route('https://www.google.com/**', (r) =>
      r.fulfill({ status: 200, contentType: 'text/html', body: '<h1>search engine</h1>' }),
    );
    const page = await ctx.newPage();
    await page.goto(base);
    await see(page, 'I AM 18+ - ENTER SITE');
    await screenshot(page, '01-age-gate');
    await page.getByRole('button', { name: 'EXIT SITE' }).click();
    await page.waitForURL(/google\.com/, { timeout: T });

    await page.goto(base);
    await page.getByRole('button', { name: 'I AM 18+ - ENTER SITE' }).click();
    await see(page, 'JOIN NOW');
    expect(await page.evaluate(() => localStorage.getItem('ageVerified'))).toBe('true');
    await page.reload();
    await see(page, 'JOIN NOW');
    expect(await page.getByText('I AM 18+ - ENTER SITE').count()).toBe(0);
    // The page-loading class goes (after 1000 ms; T only catches a hang on a busy machine).
    await page.waitForFunction(() => !document.body.classList.contains('page-loading'), null, { timeout: T });
    await see(page, 'Featured Videos');
    await screenshot(page, '02-landing');
    await ctx.close();
  });

  it('registration shows each validation error in order, then succeeds', async () => {
    // A browser 14 hours ahead of UTC: the form's dates follow the UTC calendar as the server's do.
    const started = new Date();
    memberCtx = await verifiedContext({ timezoneId: 'Pacific/Kiritimati' });
    member = await memberCtx.newPage();
    await member.goto(`${base}/register`);
    const submit = () => member.getByRole('button', { name: 'Create Account' }).click();
    const expectError = async (message: string) => {
      await submit();
      await member.getByRole('alert').filter({ hasText: message }).waitFor({ timeout: T });
    };
    await expectError('All fields are required');
    await member.getByLabel('First Name').fill(MEMBER.firstName);
    await member.getByLabel('Last Name').fill(MEMBER.lastName);
    await member.getByLabel('Email').fill(MEMBER.email);
    await member.getByLabel('Password', { exact: true }).fill('short');
    await expectError('Password must be at least 8 characters long');
    await member.getByLabel('Password', { exact: true }).fill(MEMBER.password);
    await member.getByLabel('Confirm Password').fill('something-else');
    await expectError('Passwords do not match');
    await member.getByLabel('Confirm Password').fill(MEMBER.password);
    await expectError('Date of birth is required for age verification');
    const max = await member.getByLabel('Date of Birth').getAttribute('max');
    const today = new Date();
    // Today (UTC) minus 18 years, by the shared rule (on 29 February: the 28th, see registration.unit.test.ts);
    // the page computed it when it rendered, which may be either side of midnight UTC from here.
    expect([maxBirthDate(started), maxBirthDate(today)]).toContain(max);
    await member.getByLabel('Date of Birth').fill(`${today.getUTCFullYear() - 10}-01-01`);
    await expectError('You must be at least 18 years old to register');
    await member.getByLabel('Date of Birth').fill(MEMBER.dob);
    await expectError('You must agree to the Terms of Service');
    await member.getByLabel(/I agree to the/).check();
    await expectError('You must verify that you are 18 years or older');
    await screenshot(member, '03-register-validation');
    await member.getByLabel('I certify that I am 18 years of age or older').check();
    await submit();
    await member.waitForURL(`${base}/registration-success`, { timeout: T });
    await see(member, 'Registration Successful!');
    await screenshot(member, '04-registration-success');
  });

  it('a pending member lands on /pending-approval and cannot watch', async () => {
    await signIn(member, base, MEMBER.email, MEMBER.password);
    await member.waitForURL(`${base}/pending-approval`, { timeout: T });
    await see(member, 'Account Pending Approval');
    await see(member, MEMBER.email);
    await see(member, 'Pending Approval');
    await screenshot(member, '05-pending-approval');
    await member.goto(`${base}/videos/${freeVideoId}`);
    await see(member, 'Your account is pending approval. You will receive an email when approved.');
  });

  it('a visitor sees the login reason on a video', async () => {
    const ctx = await verifiedContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/videos/${premiumVideoId}`);
    await see(page, 'Please log in to view videos');
    await ctx.close();
  });

  it('the admin logs in to /admin and approves the member', async () => {
    adminCtx = await verifiedContext();
    admin = await adminCtx.newPage();
    await signIn(admin, base, TEST_ADMIN.email, TEST_ADMIN.password);
    await admin.waitForURL(`${base}/admin`, { timeout: T });
    await see(admin, 'Pending User Approvals (1)');
    await see(admin, 'Pending Approvals');
    await admin.getByRole('button', { name: `Approve ${MEMBER.email}` }).click();
    await see(admin, 'User approved successfully!');
    await see(admin, 'No pending user approvals');
    await screenshot(admin, '06-admin-approved');
  });

  it('a non-admin sees Access Denied on /admin; an approved member logs in to /videos', async () => {
    await member.goto(`${base}/logout`);
    await member.waitForURL(`${base}/login`, { timeout: T });
    await signIn(member, base, MEMBER.email, MEMBER.password);
    await member.waitForURL(`${base}/videos`, { timeout: T });
    await see(member, `Welcome, ${MEMBER.firstName}`);
    await member.goto(`${base}/admin`);
    await see(member, 'Access Denied');
    await see(member, "You don't have permission to access this page.");
  });

  it('catalog and detail: the premium video is denied with Subscribe to Watch', async () => {
    await member.goto(`${base}/videos`);
    await see(member, 'Premium Videos');
    await see(member, 'Velvet Premiere');
    await screenshot(member, '07-videos');
    await member.getByRole('link', { name: 'Watch: Velvet Premiere' }).click();
    await member.waitForURL(`${base}/videos/${premiumVideoId}`, { timeout: T });
    await see(member, 'Active subscription required to view premium content');
    await see(member, '0:20');
    await see(member, 'More from Luna Hart');
    await member.getByRole('link', { name: 'Subscribe to Watch' }).waitFor();
    expect(await member.locator('.detail-thumb.denied').count()).toBe(1);
    await screenshot(member, '08-video-denied');
  });

  it('the member buys a monthly plan with a transaction hash', async () => {
    await member.goto(`${base}/subscription`);
    await see(member, 'Bitcoin Payments Only');
    await see(member, 'MOST POPULAR');
    await member.getByRole('button', { name: 'Select Plan' }).first().click();
    await see(member, 'Back to Plans');
    await member.getByTestId('payment-qr').waitFor({ timeout: T });
    const address = (await member.getByTestId('btc-address').textContent())?.trim();
    expect(address).toMatch(/^(bc1|tb1|[13mn2])/);
    // 'Copied' for 3 s, then 'Copy' again: watched from before the click, so a slow machine cannot
    // miss the 3 s; T only catches a hang.
    const copied = member.getByRole('button', { name: 'Copied' }).waitFor({ timeout: T });
    await member.getByRole('button', { name: 'Copy' }).click();
    await copied;
    await member.getByRole('button', { name: 'Copy' }).waitFor({ timeout: T });
    await screenshot(member, '09-bitcoin-payment');
    await member.getByLabel('Transaction hash (optional)').fill(TX_HASH);
    await member.getByRole('button', { name: "I've Sent Payment" }).click();
    await see(member, 'Payment Submitted');
    await see(member, 'Payment Submitted!');
    await screenshot(member, '10-payment-success');
    await member.waitForURL(`${base}/videos`, { timeout: 10_000 });
  });

  it('the admin verifies the payment', async () => {
    await admin.goto(`${base}/admin`);
    await see(admin, 'Pending Payment Verifications (1)');
    const link = admin.getByRole('link', { name: `${TX_HASH.slice(0, 16)}...` });
    expect(await link.getAttribute('href')).toContain(TX_HASH);
    await see(admin, '0.0005 BTC');
    await screenshot(admin, '11-admin-pending-payment');
    await admin.getByRole('button', { name: `Verify & Activate payment of ${MEMBER.email}` }).click();
    await see(admin, 'Payment verified and subscription activated!');
    await see(admin, 'No pending payment verifications');
  });

  it('the member plays the premium video in the secure overlay; the view is counted', async () => {
    // Members play renditions (the original is for admins only): the ladder must exist first.
    await waitTranscoded(base, uploaderToken, premiumVideoId);
    const before = (await apiClient(base).get(`/videos/${premiumVideoId}`)).body.data.viewCount as number;
    await member.goto(`${base}/videos/${premiumVideoId}`);
    await member.getByRole('button', { name: /Watch Now/ }).click({ timeout: T });
    const video = member.getByTestId('secure-video');
    await video.waitFor({ timeout: T });
    expect(await video.getAttribute('controlslist')).toContain('nodownload');
    expect(await video.evaluate((v: HTMLVideoElement) => v.disablePictureInPicture)).toBe(true);
    expect(await video.evaluate((v) => v.hasAttribute('disableremoteplayback'))).toBe(true);
    await member.getByRole('button', { name: 'Play', exact: true }).click();
    await member.waitForFunction(() => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime > 1, null, {
      timeout: T,
    });

    const watermark = member.getByTestId('watermark');
    expect(await watermark.isVisible()).toBe(true);
    expect(await watermark.textContent()).toContain(MEMBER.email);
    // It moves every few seconds, so it cannot be cropped away.
    const spot = await watermark.getAttribute('style');
    await member.waitForFunction((before) => document.querySelector('[data-testid=watermark]')?.getAttribute('style') !== before, spot, {
      timeout: 10_000,
    });
    await screenshot(member, '12-player');

    // Seek with the slider.
    await member.getByRole('slider', { name: 'Seek' }).fill('12');
    await member.waitForFunction(
      () => (document.querySelector('[data-testid=secure-video]') as HTMLVideoElement).currentTime >= 11.5,
      null,
      { timeout: T },
    );
    // Volume slider 0..1 step 0.1.
    const volume = member.getByRole('slider', { name: 'Volume' });
    expect(await volume.getAttribute('step')).toBe('0.1');
    await volume.fill('0.5');
    expect(await video.evaluate((v: HTMLVideoElement) => v.volume)).toBeCloseTo(0.5);
    // Context menu is blocked.
    const prevented = await video.evaluate((v) => {
      const e = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
      v.dispatchEvent(e);
      return e.defaultPrevented;
    });
    expect(prevented).toBe(true);

    // More than 5 s of watching, then close: the view is sent.
    await member.getByRole('slider', { name: 'Seek' }).fill('1');
    await member.waitForFunction(
      () => /Watched: 0:0[6-9]|Watched: 0:[1-9]\d/.test(document.querySelector('[data-testid=watched]')?.textContent ?? ''),
      null,
      {
        timeout: 20_000,
      },
    );
    await member.getByRole('button', { name: 'Close player' }).click();
    await expect
      .poll(async () => (await apiClient(base).get(`/videos/${premiumVideoId}`)).body.data.viewCount, { timeout: T })
      .toBe(before + 1);
  });

  it('the member cancels and reactivates the subscription', async () => {
    await member.goto(`${base}/subscription`);
    await member.getByRole('tab', { name: 'My Subscription' }).click();
    await see(member, 'Active');
    await member.getByRole('button', { name: 'Cancel Subscription' }).click();
    await see(
      member,
      'Are you sure you want to cancel your subscription? You will retain access until the end of your current billing period.',
    );
    await member.getByRole('dialog').getByRole('button', { name: 'Cancel Subscription' }).click();
    await see(member, 'Subscription canceled successfully. You will retain access until the end of your current billing period.');
    await see(member, 'Canceling at period end');
    await screenshot(member, '13-subscription-canceling');
    await member.getByRole('button', { name: 'Reactivate Subscription' }).click();
    await see(member, 'Subscription reactivated successfully.');
    await member
      .getByTestId('subscription-status')
      .filter({ hasText: /^Active$/ })
      .waitFor({ timeout: T });
  });

  it('error pages: 404, 500 and unknown paths', async () => {
    await member.goto(`${base}/error/missing`);
    await see(member, 'Oops!');
    await see(member, "We can't find that page.");
    await screenshot(member, '14-404');
    await member.goto(`${base}/error/500`);
    await see(member, 'System Error');
    await see(member, 'Something went wrong! Please try again later.');
    await screenshot(member, '15-500');
    await member.goto(`${base}/no/such/page`);
    await member.waitForURL(/\/videos$/, { timeout: T }); // → / → /videos for a signed-in member
  });

  it('logout clears the session and goes to /login', async () => {
    await member.goto(`${base}/videos`);
    await member.getByRole('link', { name: 'Logout' }).click();
    await member.waitForURL(`${base}/login`, { timeout: T });
    expect(await member.evaluate(() => localStorage.getItem('authToken'))).toBeNull();
    expect(await member.evaluate(() => localStorage.getItem('user'))).toBeNull();
    await see(member, 'JOIN NOW');
    await screenshot(member, '16-logged-out');
  });

  it('no page threw an uncaught error along the way', () => {
    expect(pageErrors).toEqual([]);
  });

  it('no page broke the Content-Security-Policy along the way (zero violations)', () => {
    expect(cspViolations).toEqual([]);
  });

  it('the CSP collector does see a violation (an injected inline script is refused)', async () => {
    const ctx = await browser.newContext();
    const seen = await collectCspViolations(ctx);
    const page = await ctx.newPage();
    await page.goto(`${base}/models`);
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.injected = true';
      document.head.append(s);
    });
    await expect.poll(() => seen.length, { timeout: T }).toBeGreaterThan(0);
    expect(seen.join('\n')).toMatch(/script-src/);
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    await ctx.close();
  });

  it('is usable at 375 px', async () => {
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 375, height: 812 } });
    const page = await ctx.newPage();
    await page.goto(`${base}/subscription`);
    await see(page, 'Sign In to Subscribe');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('link', { name: 'JOIN NOW' }).waitFor();
    await screenshot(page, '17-mobile-subscription');
    await ctx.close();
  });
});

void path;
