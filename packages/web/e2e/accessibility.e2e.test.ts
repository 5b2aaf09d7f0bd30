/**
 * WCAG 2.2 AA with axe-core on every page of the web app (spec §2), as a visitor, a pending member,
 * a subscriber and the admin, at 1280 px and 375 px: one server, members made through the API,
 * the first page of each role loaded and the next ones reached inside the app (as a member moves
 * between pages; a full load costs Chromium a second of CPU), each waited for, its transitions
 * ended, and checked in the state a member sees (player overlay open,
 * subscription tabs, the payment view, the phone menu open). Any violation fails with page,
 * role, width, rule id and target. The desktop console's screens: admin-desktop/test/accessibility.e2e.test.ts.
 */
import fs from 'node:fs';
import { brandPalette } from '@members/ui/theme';
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
import { axeContext, axeViolations, transitionsDone } from './axe';
import { ensureBuilt, launchChromium, navigateInApp, screenshot, WEB_DIST } from './browser';

const T = 15_000;
/** What one page (load, settle, axe, screenshot) may take before it counts as hung. */
const PAGE_HANG_MS = 30_000;
const PASSWORD = 'member-password-1';

type Role = 'anonymous' | 'pending' | 'subscriber' | 'admin';
interface Session {
  token: string;
  user: unknown;
  email: string;
  password: string;
}
/** One page state to check: where to go, what shows it is ready, what to do before checking. */
interface Visit {
  name: string;
  path: string;
  ready: string | RegExp;
  act?: (page: Page) => Promise<void>;
  /** Keep the age gate (the visitor's first page). */
  ageGate?: boolean;
}

let server: TestServer;
let browser: Browser;
let base: string;
let media: string;
let premiumVideoId: string;
let freeVideoId: string;
let subscriberId: string;
const sessions: Partial<Record<Role, Session>> = {};

async function register(email: string): Promise<string> {
  const api = apiClient(base);
  const res = await api.post('/auth/register', {
    email,
    password: PASSWORD,
    firstName: 'Ada',
    lastName: 'Keys',
    dateOfBirth: '1990-04-12',
    agreeToTerms: true,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body.data.user?.id ?? res.body.data.userId) as string;
}

async function logIn(email: string, password = PASSWORD): Promise<Session> {
  const res = await apiClient(base).post('/auth/login', { email, password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { token: res.body.data.token, user: res.body.data.user, email, password };
}

/**
 * Signs a browser context in as `s`: a sign-in of its own (a refresh cookie rotates on first use, so
 * two contexts cannot share one) whose refresh and CSRF cookies the app's first page load exchanges
 * for its in-memory session, as after a reload.
 */
async function seedSession(ctx: BrowserContext, s: Session): Promise<void> {
  const res = await apiClient(base).post('/auth/login', { email: s.email, password: s.password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cookies = res.headers.getSetCookie().map((line) => {
    const [pair = ''] = line.split(';');
    const i = pair.indexOf('=');
    return { name: pair.slice(0, i).trim(), value: pair.slice(i + 1).trim(), url: base };
  });
  await ctx.addCookies(
    cookies.map((c) => (c.name === 'refresh_token' ? { ...c, url: `${base}/api/auth`, httpOnly: true, sameSite: 'Strict' as const } : c)),
  );
}

const PUBLIC_PAGES: Visit[] = [
  { name: 'landing', path: '/', ready: 'Featured Videos' },
  { name: 'models', path: '/models', ready: 'Scarlett Vane' },
  { name: '2257', path: '/2257', ready: /2257/ },
  { name: 'contact', path: '/contact', ready: /Contact/ },
  { name: 'dmca', path: '/dmca', ready: /DMCA/ },
  { name: 'privacy', path: '/privacy', ready: /Privacy Policy/ },
  { name: 'tos', path: '/tos', ready: /Terms of Service/ },
  { name: '404', path: '/error/missing', ready: 'Oops!' },
  { name: '500', path: '/error/500', ready: 'System Error' },
];

function visitsFor(role: Role): Visit[] {
  const video = (id: string, name: string, ready: string | RegExp): Visit => ({ name, path: `/videos/${id}`, ready });
  switch (role) {
    case 'anonymous':
      return [
        { name: 'age gate', path: '/', ready: 'I AM 18+ - ENTER SITE', ageGate: true },
        ...PUBLIC_PAGES,
        {
          name: 'landing, menu open',
          path: '/',
          ready: 'Featured Videos',
          act: async (page) => {
            const toggle = page.getByRole('button', { name: 'Open menu' });
            if (await toggle.isVisible()) {
              await toggle.click();
              await page.getByRole('button', { name: 'Close menu' }).waitFor();
            }
          },
        },
        { name: 'login', path: '/login', ready: 'Sign In' },
        {
          name: 'login, error shown',
          path: '/login',
          ready: 'Sign In',
          act: async (page) => {
            await page.getByLabel('Email').fill('nobody@example.test');
            await page.getByLabel('Password', { exact: true }).fill('wrong-password-1');
            await page.getByRole('button', { name: 'Sign In' }).click();
            await page.getByRole('alert').first().waitFor({ timeout: T });
          },
        },
        { name: 'register', path: '/register', ready: 'Create Account' },
        {
          name: 'register, error shown',
          path: '/register',
          ready: 'Create Account',
          act: async (page) => {
            await page.getByRole('button', { name: 'Create Account' }).click();
            await page.getByRole('alert').filter({ hasText: 'All fields are required' }).waitFor({ timeout: T });
          },
        },
        { name: 'registration success', path: '/registration-success', ready: 'Registration Successful!' },
        { name: 'forgot password', path: '/auth/forgot-password', ready: 'Reset Your Password' },
        { name: 'videos', path: '/videos', ready: 'Premium Videos' },
        video(premiumVideoId, 'video (log in to view)', 'Please log in to view videos'),
        { name: 'subscription', path: '/subscription', ready: 'Bitcoin Payments Only' },
      ];
    case 'pending':
      return [
        { name: 'pending approval', path: '/pending-approval', ready: 'Account Pending Approval' },
        video(freeVideoId, 'video (pending)', 'Your account is pending approval. You will receive an email when approved.'),
        { name: 'subscription', path: '/subscription', ready: 'Bitcoin Payments Only' },
        { name: 'account', path: '/account', ready: 'Account settings' },
        { name: 'admin (denied)', path: '/admin', ready: 'Access Denied' },
      ];
    case 'subscriber':
      return [
        { name: '/home → videos', path: '/home', ready: 'Premium Videos' },
        video(premiumVideoId, 'video (allowed)', /Watch Now/),
        {
          name: 'player overlay',
          path: `/videos/${premiumVideoId}`,
          ready: /Watch Now/,
          act: async (page) => {
            // Members play renditions (the original is for admins only): the ladder must exist first.
            await waitTranscoded(base, sessions.admin?.token as string, premiumVideoId);
            await page.getByRole('button', { name: /Watch Now/ }).click();
            await page.getByTestId('secure-video').waitFor({ timeout: T });
            await page.getByRole('button', { name: 'Close player' }).waitFor({ timeout: T });
          },
        },
        video(freeVideoId, 'video (free)', /Watch Now/),
        { name: 'subscription: plans', path: '/subscription', ready: 'Bitcoin Payments Only' },
        {
          name: 'subscription: my subscription',
          path: '/subscription',
          ready: 'Bitcoin Payments Only',
          act: async (page) => {
            await page.getByRole('tab', { name: 'My Subscription' }).click();
            await page.getByRole('button', { name: 'Cancel Subscription' }).waitFor({ timeout: T });
          },
        },
        { name: 'account', path: '/account', ready: 'Account settings' },
        { name: 'chat', path: '/chat', ready: 'Chat with the team' },
      ];
    case 'admin':
      return [
        { name: 'admin', path: '/admin', ready: 'Pending Approvals' },
        { name: 'admin member page', path: `/admin/users/${subscriberId}`, ready: 'subscriber@example.test' },
        { name: 'admin live shows', path: '/admin/live', ready: 'Schedule a show' },
        { name: 'account', path: '/account', ready: 'Account settings' },
        { name: 'videos', path: '/videos', ready: 'Premium Videos' },
      ];
  }
}

/** The Bitcoin payment view needs a member who can buy: the pending member is refused, so an approved one without a plan. */
const PAYMENT_VIEW: Visit = {
  name: 'subscription: payment view',
  path: '/subscription',
  ready: 'Bitcoin Payments Only',
  act: async (page) => {
    await page.getByRole('button', { name: 'Select Plan' }).first().click();
    await page.getByTestId('payment-qr').waitFor({ timeout: T });
  },
};

async function settle(page: Page, visit: Visit): Promise<void> {
  const scope = visit.ageGate ? page.locator('body') : page.locator('#main');
  await scope.getByText(visit.ready).first().waitFor({ state: 'visible', timeout: T });
  await page.waitForFunction(() => !document.body.classList.contains('page-loading'), null, { timeout: 5000 });
  await page
    .getByText('Loading...')
    .first()
    .waitFor({ state: 'detached', timeout: 5000 })
    .catch(() => {});
  if (visit.act) await visit.act(page);
  await transitionsDone(page);
}

async function checkRole(role: Role, width: number, session: Session | undefined, all: Visit[]): Promise<string[]> {
  const found: string[] = [];
  for (const ageGate of [true, false]) {
    const visits = all.filter((v) => Boolean(v.ageGate) === ageGate);
    if (!visits.length) continue;
    const ctx = await axeContext(browser, { viewport: { width, height: 900 } });
    await ctx.addInitScript(
      ({ verified }) => {
        if (!location.protocol.startsWith('http')) return;
        if (verified) localStorage.setItem('ageVerified', 'true');
      },
      { verified: !ageGate },
    );
    if (session) await seedSession(ctx, session);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    for (const [i, visit] of visits.entries()) {
      // The first page of a role loads the app; the next ones are reached inside it, as a member
      // moves between pages, except a page that follows itself (loaded again, in its first state).
      const samePage = i > 0 && (await page.evaluate(() => location.pathname + location.search)) === visit.path;
      if (i === 0 || samePage) await page.goto(`${base}${visit.path}`);
      else await navigateInApp(page, visit.path);
      await settle(page, visit);
      found.push(...(await axeViolations(page, `${visit.name} [${role}, ${width}px] ${visit.path}`)));
      if (width === 1280) await screenshot(page, `a11y-${role}-${visit.name.replace(/[^a-z0-9]+/gi, '-')}`);
    }
    expect(errors).toEqual([]);
    await ctx.close();
  }
  return found;
}

describe('WCAG 2.2 AA (axe-core) on every page', () => {
  let buyer: Session;
  let rejected: Session;

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' } });
    base = server.url;
    browser = await launchChromium();
    media = tmpDir('a11y-e2e-media-');
    const api = apiClient(base);
    sessions.admin = await logIn(TEST_ADMIN.email, TEST_ADMIN.password);
    const adminToken = sessions.admin.token;
    const mp4 = await makeMp4(media, 8);
    const thumb = await makeImage(media, 'jpg');
    const premium = await postUpload(
      base,
      adminToken,
      { title: 'Velvet Premiere', description: 'A premium test scene.', model: 'Luna Hart', duration: '0:08', accessLevel: 'premium' },
      { video: mp4, thumbnail: thumb },
    );
    expect(premium.status, JSON.stringify(premium.body)).toBe(201);
    premiumVideoId = premium.body.data.videoId;
    const free = await postUpload(
      base,
      adminToken,
      { title: 'Free Teaser', model: 'Luna Hart', duration: '0:08', accessLevel: 'free' },
      { video: mp4 },
    );
    expect(free.status, JSON.stringify(free.body)).toBe(201);
    freeVideoId = free.body.data.videoId;

    await register('pending@example.test');
    sessions.pending = await logIn('pending@example.test');

    subscriberId = await register('subscriber@example.test');
    const buyerId = await register('buyer@example.test');
    for (const id of [subscriberId, buyerId]) {
      const approved = await api.post(`/admin/users/${id}/approve`, {}, adminToken);
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    }
    const sub = await logIn('subscriber@example.test');
    const paid = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId: subscriberId, planType: 'annual', btcAmount: '0.005' },
      sub.token,
    );
    expect(paid.status, JSON.stringify(paid.body)).toBeLessThan(300);
    const pending = await api.get('/admin/pending-payments', adminToken);
    const paymentId = (pending.body.data.payments ?? pending.body.data)[0].id as string;
    const verified = await api.post(`/admin/payments/${paymentId}/verify`, undefined, adminToken);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    sessions.subscriber = await logIn('subscriber@example.test');
    buyer = await logIn('buyer@example.test');
    const rejectedId = await register('rejected@example.test');
    const refused = await api.post(`/admin/users/${rejectedId}/reject`, { reason: 'Not eligible' }, adminToken);
    expect(refused.status, JSON.stringify(refused.body)).toBe(200);
    rejected = await logIn('rejected@example.test');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  it('the check can fail: white on the brand pink is reported as color-contrast', async () => {
    const ctx = await axeContext(browser);
    const page = await ctx.newPage();
    await page.setContent('<html lang="en"><title>t</title><main><p style="color:#fff;background:#e91e63">Join now</p></main></html>');
    const found = await axeViolations(page, 'probe');
    await ctx.close();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^probe: color-contrast \(serious\) \["p"\] .*4\.34/);
  });

  it("another brand's colours reach the pages, with the text colours computed for them", async () => {
    const result = brandPalette({ brand: '#1565c0' });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const blue = await startTestServer('sqlite', { env: { WEB_DIST }, site: { theme: result.palette } });
    try {
      const ctx = await axeContext(browser, { viewport: { width: 1280, height: 900 } });
      await ctx.addInitScript(() => localStorage.setItem('ageVerified', 'true'));
      const page = await ctx.newPage();
      await page.goto(blue.url);
      const join = page.locator('.hero').getByRole('link', { name: 'JOIN NOW' });
      await join.waitFor({ timeout: T });
      await expect.poll(() => join.evaluate((el) => getComputedStyle(el).backgroundColor), { timeout: T }).toBe('rgb(21, 101, 192)');
      // White on this blue (5.75:1), where the pink takes black.
      expect(await join.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 255, 255)');
      await settle(page, { name: 'landing', path: '/', ready: 'Featured Videos' });
      expect(await axeViolations(page, 'landing, blue brand')).toEqual([]);
      await screenshot(page, 'a11y-brand-blue-landing');
      await ctx.close();
    } finally {
      await blue.close();
    }
  });

  for (const width of [1280, 375]) {
    for (const role of ['anonymous', 'pending', 'subscriber', 'admin'] as const) {
      // A bound per page that only catches a hang: a role visits up to twenty pages, and the visitor's
      // 1280 px round took 71 s on a quiet CI run and over the project's 120 s on a loaded machine.
      it(
        `${role} at ${width} px: no violations`,
        async () => {
          const found = await checkRole(role, width, sessions[role], visitsFor(role));
          if (found.length) console.error(found.join('\n'));
          expect(found).toEqual([]);
        },
        visitsFor(role).length * PAGE_HANG_MS,
      );
    }
    it(`rejected member at ${width} px: their data page (download, delete) has no violations`, async () => {
      const found = await checkRole('pending', width, rejected, [
        { name: 'your data (rejected)', path: '/account/your-data', ready: 'Your data' },
      ]);
      if (found.length) console.error(found.join('\n'));
      expect(found).toEqual([]);
    });
    it(`approved member at ${width} px: the Bitcoin payment view has no violations`, async () => {
      const found = await checkRole('subscriber', width, buyer, [PAYMENT_VIEW]);
      if (found.length) console.error(found.join('\n'));
      expect(found).toEqual([]);
    });
  }
});
