/**
 * A renewal on the member's page in Chromium (issue 38 item 5): inside the notice window the My
 * Subscription tab says "Renewal due on {date}" with the BTC amount and the renewal's QR code, not
 * "Renews on" with a dollar amount; "Pay Renewal" opens the payment view on the renewal's own
 * address, and "I've sent payment" there submits it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  approvedMember,
  HASH,
  runLifecycle,
  startTestServer,
  TEST_ADMIN,
  TestClock,
  type TestServer,
} from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 15_000;
const DAY = 86_400_000;
let server: TestServer;
let browser: Browser;
const clock = new TestClock(new Date('2026-02-10T10:00:00.000Z'));

describe('renewal on the member page in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { clock, env: { WEB_DIST } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('"Renewal due on" with the BTC amount and its QR code; Pay Renewal submits against the renewal', async () => {
    const api = apiClient(server.url);
    const m = await approvedMember(api, { email: 'renewing.member@example.test' });
    const submitted = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId: m.id, planType: 'annual', btcAmount: '0.005', transactionHash: HASH(9001) },
      m.token,
    );
    const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
    const verified = await api.post(`/admin/payments/${submitted.body.data.paymentId}/verify`, undefined, admin);
    const end = verified.body.data.subscription.currentPeriodEnd as string;
    clock.set(new Date(Date.parse(end) - 3 * DAY));
    await runLifecycle(server.ctx);
    const renewal = (
      await api.get('/payments/subscription', (await api.post('/auth/login', { email: m.email, password: m.password })).body.data.token)
    ).body.data.renewal;
    expect(renewal).toMatchObject({ status: 'requested', dueAt: end });

    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, m.email, m.password);
      await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      await page.goto(`${server.url}/subscription`);
      await page.getByRole('tab', { name: 'My Subscription' }).click();
      const due = page.locator('dt', { hasText: 'Renewal due on' });
      await due.waitFor({ timeout: T });
      expect(await page.getByText('Renews on').count()).toBe(0);
      expect(await page.locator('dd', { hasText: '0.005 BTC' }).count()).toBe(1);
      await page.getByRole('img', { name: `QR code: pay 0.005 BTC to ${renewal.address}` }).waitFor({ timeout: T });

      await page.getByRole('button', { name: 'Pay Renewal' }).click();
      await page.getByText(renewal.address).first().waitFor({ timeout: T });
      await page.getByLabel('Transaction hash', { exact: false }).fill(HASH(9002));
      await page.getByRole('button', { name: /I've sent payment/i }).click();
      await page.getByText('Payment Submitted!').waitFor({ timeout: T });
      const events = await server.ctx.store.readStream(`payment-${renewal.paymentId}`);
      expect(events.map((e) => e.type)).toEqual(['PaymentRequested', 'PaymentSubmitted']);
    } finally {
      await ctx.close();
    }
  });
});
