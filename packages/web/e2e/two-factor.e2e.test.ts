/**
 * The admin's second factor in Chromium against the real server with REQUIRE_ADMIN_2FA=true: the
 * admin is held to the setup screen (the dashboard bounces back to it), enrols from the QR code's
 * key (the code computed here from the shown secret with the server's TOTP library and clock),
 * keeps the recovery codes, reaches the dashboard, and signs in again with the code step.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer, totpCode, wrongTotpCode } from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const T = 15_000;
let server: TestServer;
let browser: Browser;
let base: string;

async function see(page: Page, text: string | RegExp, timeout = T) {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout });
}

/** Content-Security-Policy violations in any page (the QR codes are data: images the policy must allow). */
const cspViolations: string[] = [];

async function newPage(): Promise<Page> {
  const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
  await collectCspViolations(ctx, cspViolations);
  return ctx.newPage();
}

describe('two-factor authentication in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, REQUIRE_ADMIN_2FA: 'true' } });
    base = server.url;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('enrols before the dashboard, then signs in with a code', async () => {
    const page = await newPage();

    // 1. Password only: the setup screen, and the dashboard sends the admin back to it.
    await signIn(page, base, TEST_ADMIN.email, TEST_ADMIN.password);
    await page.waitForURL(`${base}/account/two-factor`, { timeout: T });
    await see(page, 'Two-factor authentication is required for administrators. Set it up to continue.');
    await page.goto(`${base}/admin`);
    await page.waitForURL(`${base}/account/two-factor`, { timeout: T });

    // 2. The setup: QR code, manual key, ten recovery codes, the confirming code.
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByTestId('mfa-qr').waitFor({ state: 'visible', timeout: T });
    const secret = (await page.getByTestId('mfa-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.getByTestId('mfa-recovery-codes').locator('li').count()).toBe(10);
    await screenshot(page, '60-two-factor-setup');
    await page.getByLabel('Enter the 6-digit code from the app').fill(totpCode(secret, server.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.waitForURL(`${base}/admin`, { timeout: T });
    await see(page, 'Upload New Video');

    // 3. Sign out and in again: the code step; a wrong code is refused in place.
    await page.goto(`${base}/logout`);
    await page.waitForURL((u) => !u.pathname.startsWith('/logout'), { timeout: T });
    server.clock.advance(30_000);
    await signIn(page, base, TEST_ADMIN.email, TEST_ADMIN.password);
    const codeField = page.getByLabel('Authentication code');
    await codeField.waitFor({ state: 'visible', timeout: T });
    const code = totpCode(secret, server.clock.now());
    await codeField.fill(wrongTotpCode(secret, server.clock.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').filter({ hasText: 'The code is not valid' }).waitFor({ timeout: T });
    await screenshot(page, '61-two-factor-code-step');
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/admin`, { timeout: T });
    await see(page, 'Upload New Video');
    await page.context().close();
  });

  it('a member may turn it on, and off again with the password and a code', async () => {
    const member = { email: 'mia-2fa@example.test', password: 'member-password-1' };
    const registered = await apiClient(base).post('/auth/register', {
      ...member,
      firstName: 'Mia',
      lastName: 'Member',
      dateOfBirth: '1990-05-01',
      agreeToTerms: true,
    });
    expect(registered.status).toBe(201);
    const page = await newPage();
    await signIn(page, base, member.email, member.password);
    await page.waitForURL((u) => u.pathname !== '/login', { timeout: T });
    await page.goto(`${base}/account/two-factor`);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const secret = (await page.getByTestId('mfa-secret').textContent())?.trim() ?? '';
    server.clock.advance(30_000);
    await page.getByLabel('Enter the 6-digit code from the app').fill(totpCode(secret, server.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.getByTestId('mfa-enabled').waitFor({ timeout: T });
    await see(page, 'Recovery codes left: 10');

    server.clock.advance(30_000);
    await page.getByLabel('Password', { exact: true }).fill(member.password);
    await page.getByLabel('Authentication code').fill(totpCode(secret, server.clock.now()));
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).click();
    await see(page, 'Two-factor authentication is off.');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor({ timeout: T });
    await page.context().close();
  });

  it('no page broke the Content-Security-Policy (zero violations, QR codes included)', () => {
    expect(cspViolations).toEqual([]);
  });
});
