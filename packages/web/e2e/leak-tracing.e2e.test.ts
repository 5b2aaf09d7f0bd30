/**
 * Leak tracing in Chromium (docs/leak-tracing.md): the admin opens /admin, follows "Leak tracing",
 * picks a small unmarked MP4 and sends it; the screen polls the examination and says in plain words
 * that no member is named, and the past examinations list it with who asked; the screen with an
 * outcome has no WCAG 2.2 AA violation (axe-core). A member opening /admin/leaks reads 'Access
 * Denied'. No CSP violation.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, billingTestKit, makeMp4, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../api/test/support';
import { axeViolations } from './axe';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 30_000;
const work = tmpDir('web-e2e-leaks-');

describe('leak tracing in the browser', () => {
  let server: TestServer;
  let browser: Browser;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, FORENSIC_WATERMARK: 'true', AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('the admin sends an unmarked copy and reads "No match" in plain words, then finds it in the past examinations', async () => {
    const copy = path.join(work, 'leaked-copy.mp4');
    fs.copyFileSync(await makeMp4(work, 2), copy);
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    await collectCspViolations(ctx, cspViolations);
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.waitForURL(`${server.url}/admin`, { timeout: T });
      await page.getByRole('link', { name: 'Leak tracing' }).click();
      await page.getByRole('heading', { name: 'Leak tracing', level: 1 }).waitFor({ timeout: T });
      await page.getByText('No leaked copy examined yet.').waitFor({ timeout: T });
      await page.getByLabel('Leaked copy').setInputFiles(copy);
      await page.getByRole('button', { name: 'Examine copy' }).click();
      const outcome = page.getByTestId('leak-outcome');
      await outcome.and(page.locator('[data-status=done]')).waitFor({ timeout: T });
      expect(String(await outcome.textContent())).toContain('No match: no member is named.');
      expect(String(await outcome.textContent())).toContain('leaked-copy.mp4');
      const row = page.locator('.leak-history tbody tr').first();
      await row.getByText('no match').waitFor({ timeout: T });
      expect(String(await row.textContent())).toContain(TEST_ADMIN.email);
    } finally {
      await ctx.close();
    }
    expect(cspViolations).toEqual([]);
    // axe is injected as a script: a context of its own, without the CSP.
    const axeCtx = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    await axeCtx.addInitScript(() => localStorage.setItem('ageVerified', 'true'));
    const axePage = await axeCtx.newPage();
    try {
      await signIn(axePage, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
      await axePage.waitForURL(`${server.url}/admin`, { timeout: T });
      await axePage.goto(`${server.url}/admin/leaks`);
      await axePage.getByLabel('Leaked copy').setInputFiles(copy);
      await axePage.getByRole('button', { name: 'Examine copy' }).click();
      await axePage.locator('[data-testid=leak-outcome][data-status=done]').waitFor({ timeout: T });
      expect(await axeViolations(axePage, 'web /admin/leaks')).toEqual([]);
    } finally {
      await axeCtx.close();
    }
  }, 120_000);

  it("a member opening /admin/leaks reads 'Access Denied'", async () => {
    const kit = await billingTestKit(server);
    const member = await approvedMember(kit.api, { firstName: 'Curious', lastName: 'Member' });
    const ctx = await ageVerifiedContext(browser);
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, member.email, member.password);
      await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      await page.goto(`${server.url}/admin/leaks`);
      await page.getByText('Access Denied').first().waitFor({ timeout: T });
      expect(await page.getByRole('button', { name: 'Examine copy' }).count()).toBe(0);
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
