/**
 * Sessions no script can read, and passkeys, in Chromium against the real server (issue 42 items 3
 * and 4). After a sign-in, localStorage and sessionStorage hold no token and no personal field, and
 * a reload signs the page in again through the httpOnly refresh cookie alone. A member registers a
 * passkey and signs in with it; an admin the server holds to a second factor (REQUIRE_ADMIN_2FA)
 * registers one instead of TOTP, then signs in with it and is asked for no code. Chromium's virtual
 * authenticator (DevTools protocol) is the passkey. The server is reached on http://localhost (a
 * secure context: WebAuthn refuses an IP address as relying party).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 15_000;
const MEMBER = { firstName: 'Pia', lastName: 'Sskey', email: 'pia.sskey@example.test', password: 'member-password-1' };

let server: TestServer;
let browser: Browser;
let base: string;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

async function see(page: Page, text: string | RegExp) {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout: T });
}

/** A page with a virtual platform authenticator (resident keys, user verification), as a laptop's. */
async function withAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

async function context(): Promise<BrowserContext> {
  const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
  ctx.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(`${p.url()}: ${e.message}`)));
  await collectCspViolations(ctx, cspViolations);
  return ctx;
}

/** Every key and value of both storages, and the cookies a script can read. */
function scriptReach(page: Page) {
  return page.evaluate(() => {
    const dump = (s: Storage) =>
      Object.fromEntries(Array.from({ length: s.length }, (_, i) => s.key(i) as string).map((k) => [k, s.getItem(k)]));
    return { local: dump(localStorage), session: dump(sessionStorage), cookies: document.cookie };
  });
}

/** What a script in the page could lift: no bearer token, no field of the signed-in account. */
function expectNothingPersonal(reach: Awaited<ReturnType<typeof scriptReach>>, secrets: string[]) {
  const text = JSON.stringify([reach.local, reach.session]);
  expect(Object.keys(reach.local)).not.toContain('authToken');
  expect(Object.keys(reach.local)).not.toContain('user');
  expect(Object.keys(reach.session)).toEqual([]);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./); // no JWT
  expect(reach.cookies).not.toContain('refresh_token');
}

describe('sessions out of script reach, passkeys (Chromium, http://localhost)', () => {
  let memberId: string;

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    base = server.url.replace('127.0.0.1', 'localhost');
    server.ctx.env.PUBLIC_URL = base;
    browser = await launchChromium();
    const api = apiClient(server.url);
    const registered = await api.post('/auth/register', { ...MEMBER, dateOfBirth: '1990-04-12', agreeToTerms: true });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    memberId = registered.body.data.user.id;
    const admin = await api.post('/auth/login', TEST_ADMIN);
    expect((await api.post(`/admin/users/${memberId}/approve`, {}, admin.body.data.token)).status).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('after a sign-in and a reload, no storage holds a token or a personal field; the reload is signed in through the cookie', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    const refreshes: number[] = [];
    page.on('response', (r) => r.url().endsWith('/api/auth/refresh') && refreshes.push(r.status()));
    await signIn(page, base, MEMBER.email, MEMBER.password);
    await page.waitForURL(`${base}/videos`, { timeout: T });
    const secrets = [MEMBER.email, MEMBER.firstName, MEMBER.lastName, memberId, '1990-04-12'];
    expectNothingPersonal(await scriptReach(page), secrets);

    await page.reload();
    await page.waitForURL(`${base}/videos`, { timeout: T });
    await page.getByRole('link', { name: 'Logout' }).waitFor({ timeout: T });
    expect(refreshes).toEqual([200]);
    expectNothingPersonal(await scriptReach(page), secrets);

    // A new tab of the same browser is signed in the same way.
    const other = await ctx.newPage();
    await other.goto(`${base}/account`);
    await see(other, MEMBER.email);
    expectNothingPersonal(await scriptReach(other), secrets);

    // Signed out: the cookie is gone, and a reload stays signed out without asking.
    await page.getByRole('link', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`, { timeout: T });
    refreshes.length = 0;
    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Sign In' }).waitFor({ timeout: T });
    expect(refreshes).toEqual([]);
    await ctx.close();
  });

  it('a member adds a passkey, then signs in with it instead of the password', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    await withAuthenticator(page);
    await signIn(page, base, MEMBER.email, MEMBER.password);
    await page.waitForURL(`${base}/videos`, { timeout: T });
    await page.goto(`${base}/account`);
    const section = page.getByTestId('passkeys');
    await section.getByText('No passkeys yet').waitFor({ timeout: T });
    await section.getByLabel('Passkey name').fill('Test laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await see(page, 'Passkey "Test laptop" added.');
    await section.getByRole('cell', { name: 'Test laptop', exact: true }).waitFor({ timeout: T });

    await page.goto(`${base}/logout`);
    await page.waitForURL(`${base}/login`, { timeout: T });
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/videos`, { timeout: T });
    expectNothingPersonal(await scriptReach(page), [MEMBER.email, MEMBER.firstName, MEMBER.lastName, memberId]);
    await page.goto(`${base}/account`);
    const row = page.getByTestId('passkeys').getByRole('row', { name: /Test laptop/ });
    await row.waitFor({ timeout: T });
    expect(await row.getByText('Never').count()).toBe(0); // last used: now

    // Signing other devices out asks who it is again: with the password field left empty, the passkey.
    const elsewhere = await apiClient(server.url).post('/auth/login', { email: MEMBER.email, password: MEMBER.password });
    expect(elsewhere.status).toBe(200);
    await page.reload();
    const sessions = page.getByTestId('sessions');
    await sessions.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await see(page, '1 other session signed out.');
    expect((await apiClient(server.url).get('/users/profile', elsewhere.body.data.token)).status).toBe(401);
    await ctx.close();
  });

  it('an admin held to a second factor adds a passkey instead of TOTP, then signs in with it and no code is asked', async () => {
    server = await server.restart({ REQUIRE_ADMIN_2FA: 'true', WEB_DIST, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' });
    base = server.url.replace('127.0.0.1', 'localhost');
    server.ctx.env.PUBLIC_URL = base;
    const ctx = await context();
    const page = await ctx.newPage();
    await withAuthenticator(page);
    await signIn(page, base, TEST_ADMIN.email, TEST_ADMIN.password);
    await page.waitForURL(`${base}/account/two-factor`, { timeout: T });
    const section = page.getByTestId('passkeys');
    await section.getByLabel('Passkey name').fill('Admin laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${base}/admin`, { timeout: T });
    await see(page, 'Pending Approvals');

    await page.goto(`${base}/logout`);
    await page.waitForURL(`${base}/login`, { timeout: T });
    // The password alone is one factor: refused, with the way in named.
    await signIn(page, base, TEST_ADMIN.email, TEST_ADMIN.password);
    await page
      .getByRole('alert')
      .filter({ hasText: 'Sign in with your passkey: your account uses it as its second factor.' })
      .waitFor({ timeout: T });
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/admin`, { timeout: T });
    await see(page, 'Pending Approvals');
    expect(await page.getByLabel(/authentication code/i).count()).toBe(0);
    expectNothingPersonal(await scriptReach(page), [TEST_ADMIN.email]);

    // The API reference page gets its token from the same session cookie (nothing stored to read).
    await page.goto(`${base}/api/docs`);
    await page.locator('#docs .info').first().waitFor({ timeout: T });
    expect(await page.locator('#docs-status').innerText()).toBe('');
    await ctx.close();
  });

  it('no page error and no CSP violation', () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
