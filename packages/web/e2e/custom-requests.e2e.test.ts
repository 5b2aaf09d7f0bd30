/**
 * Custom video requests in real browsers (issue 30, annual plan): an annual member asks on
 * /custom-requests, the admin quotes in the /admin queue, the member's page shows "Pay", then the
 * address and amount of a fresh payment; the admin verifies it (the existing payment verification)
 * and the queue lists the request as paid, ready to deliver. A monthly member reads why they
 * cannot ask. Descriptions are shown as typed, never as HTML.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, billingTestKit, HASH, startTestServer, TEST_ADMIN, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 20_000;

describe('custom video requests in the browser', () => {
  let server: TestServer;
  let browser: Browser;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function context(): Promise<BrowserContext> {
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    await collectCspViolations(ctx, cspViolations);
    return ctx;
  }

  async function subscribedMember(planType: 'monthly' | 'annual', n: number, firstName: string) {
    const kit = await billingTestKit(server);
    const member = await approvedMember(kit.api, { firstName, lastName: 'Member' });
    const paid = await kit.submit(
      { id: member.id, email: member.email, token: member.token },
      { planType, btcAmount: planType === 'annual' ? '0.005' : '0.0005', transactionHash: HASH(n) },
    );
    expect(paid.status).toBe(201);
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
    return { kit, member };
  }

  it('a monthly member reads why they cannot ask', async () => {
    const { member } = await subscribedMember('monthly', 881, 'Monthly');
    const ctx = await context();
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, member.email, member.password);
      await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      await page.goto(`${server.url}/custom-requests`);
      await page.getByText('An annual (VIP) subscription is required to request custom videos').waitFor({ timeout: T });
      expect(await page.getByRole('button', { name: 'Send request' }).count()).toBe(0);
    } finally {
      await ctx.close();
    }
  });

  it('an annual member asks, the admin quotes, the member pays to an address, the admin verifies', async () => {
    const { kit, member } = await subscribedMember('annual', 882, 'Annie');
    const memberCtx = await context();
    const adminCtx = await context();
    const memberPage: Page = await memberCtx.newPage();
    const adminPage: Page = await adminCtx.newPage();
    try {
      await signIn(memberPage, server.url, member.email, member.password);
      await memberPage.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      // The header links the requests for a VIP member.
      await memberPage.getByRole('link', { name: 'Requests' }).click();
      await memberPage.getByRole('heading', { name: 'Custom video requests' }).waitFor({ timeout: T });
      const description = 'A video by the sea <b>at dusk</b>';
      await memberPage.getByLabel('Describe the video you would like').fill(description);
      await memberPage.getByRole('button', { name: 'Send request' }).click();
      await memberPage.locator('.custom-request-description', { hasText: description }).waitFor({ timeout: T });
      expect(await memberPage.locator('.custom-request-description b').count()).toBe(0);

      await signIn(adminPage, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
      await adminPage.waitForURL(`${server.url}/admin`, { timeout: T });
      await adminPage.getByRole('heading', { name: 'Custom requests' }).waitFor({ timeout: T });
      const row = adminPage.locator('.custom-request', { hasText: 'Annie Member' });
      await row.waitFor({ timeout: T });
      await row.getByLabel('Price (BTC)').fill('0.002');
      await row.getByRole('button', { name: 'Quote' }).click();
      await row.getByText('quoted').waitFor({ timeout: T });

      await memberPage.reload();
      await memberPage.getByRole('button', { name: 'Pay 0.002 BTC' }).click();
      const payment = memberPage.getByTestId('custom-request-payment');
      await payment.waitFor({ timeout: T });
      expect(await payment.textContent()).toMatch(/Send exactly 0\.002 BTC to (bc1|tb1|bcrt1)\w+/);
      await memberPage.getByTestId('payment-qr').waitFor({ timeout: T });

      // The payment waits in the admin's pending payments, named as a custom request's.
      await adminPage.reload();
      await adminPage.getByText('Custom request', { exact: true }).waitFor({ timeout: T });
      const pending = (await kit.pending()).body.data.payments as { id: string; planType: string }[];
      const custom = pending.find((p) => p.planType === 'custom');
      expect(custom).toBeDefined();
      expect((await kit.verify(custom?.id as string)).status).toBe(200);
      await adminPage.reload();
      const paidRow = adminPage.locator('.custom-request', { hasText: 'Annie Member' });
      await paidRow.getByRole('button', { name: 'Deliver' }).waitFor({ timeout: T });
      await memberPage.reload();
      await memberPage.getByText('Paid. The team is preparing your video.').waitFor({ timeout: T });
      expect(cspViolations).toEqual([]);
    } finally {
      await memberCtx.close();
      await adminCtx.close();
    }
  });
});
