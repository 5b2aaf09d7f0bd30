/**
 * The admin verifies with evidence, in Chromium against a server following a real regtest node
 * (bcoin, see api/test/bitcoin): the pending list shows what the chain received against what was
 * asked, the confirmations and the block; an underpayment's "Verify & Activate" asks for the
 * admin's reason (the chain's refusal shown) and the verification keeps it; a confirmed payment is
 * verified in one click. The member's page shows a payment the chain received before any admin.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiClient,
  type BcoinNode,
  freshRegtestAddress,
  startBcoinNode,
  startTestServer,
  TEST_ADMIN,
  type TestServer,
} from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 20_000;
const ANNUAL_SATS = 500_000; // the test site's annual price, 0.005 BTC
const { address: site, script: siteScript } = freshRegtestAddress();

let node: BcoinNode;
let server: TestServer;
let browser: Browser;

async function member(email: string) {
  const api = apiClient(server.url);
  const m = { email, password: 'member-password-1', firstName: 'Chain', lastName: 'Payer', dateOfBirth: '1990-05-01', agreeToTerms: true };
  const registered = await api.post('/auth/register', m);
  expect(registered.status).toBe(201);
  const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
  expect((await api.post(`/admin/users/${registered.body.data.user.id}/approve`, undefined, admin)).status).toBe(200);
  const token = (await api.post('/auth/login', { email, password: m.password })).body.data.token as string;
  return { id: registered.body.data.user.id as string, email, password: m.password, token };
}

/** The member pays `sats` to the site's address and says so with the hash; answers the payment id. */
async function payAndSubmit(m: Awaited<ReturnType<typeof member>>, sats: number) {
  const txid = await node.pay(siteScript, sats);
  const api = apiClient(server.url);
  const submitted = await api.post(
    '/payments/submit-bitcoin-payment',
    { userId: m.id, planType: 'annual', btcAmount: '0.005', transactionHash: txid },
    m.token,
  );
  expect(submitted.status).toBe(201);
  return { paymentId: submitted.body.data.paymentId as string, txid };
}

/**
 * Waits until the server has recorded what the chain received for the member's payment, as the
 * member's own API answers it (GET /payments/pending): the chain watcher follows the node every
 * 0.2 s, but on a loaded machine it recorded the block after the member's page had loaded, and that
 * page reads the payment once (seen once in the flake finder's rounds under load).
 */
async function untilReceived(m: { token: string }, paymentId: string, status: string): Promise<void> {
  const api = apiClient(server.url);
  const until = Date.now() + T;
  for (;;) {
    const pending = (await api.get('/payments/pending', m.token)).body.data.payments as {
      paymentId: string;
      received: { status: string } | null;
    }[];
    if (pending.find((p) => p.paymentId === paymentId)?.received?.status === status) return;
    if (Date.now() > until) throw new Error(`the payment was never recorded as ${status}: ${JSON.stringify(pending)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The row of the pending payments list for `email` (the member search lists members too). */
const rowOf = (page: Page, email: string) =>
  page
    .getByRole('table', { name: /^Pending Payment Verifications/ })
    .getByRole('row')
    .filter({ hasText: email });

describe('chain evidence on the admin dashboard in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    node = await startBcoinNode();
    server = await startTestServer('sqlite', {
      site: {
        bitcoin: {
          network: 'regtest',
          address: site,
          explorerTxUrl: 'https://explorer.example/tx/{txid}',
          paymentRequestTtlHours: 24,
          confirmations: 1,
          autoVerify: false,
          underpaymentTolerancePercent: 0,
        },
      },
      env: { WEB_DIST, BITCOIN_RPC_URL: node.rpcUrl, BITCOIN_POLL_SECONDS: '0.2' },
    });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await node?.stop();
  });

  it('shows received against asked and confirmations; an underpayment needs a reason, a confirmed payment one click', async () => {
    const short = await member('chain.short@example.test');
    const exact = await member('chain.exact@example.test');
    const underpaid = await payAndSubmit(short, ANNUAL_SATS - 1_000);
    const paid = await payAndSubmit(exact, ANNUAL_SATS);
    const [block] = await node.mine(1);
    expect(block).toBeTruthy();
    await untilReceived(exact, paid.paymentId, 'confirmed');

    // The member's page, before any admin: what the network received.
    const memberCtx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const mp = await memberCtx.newPage();
    await signIn(mp, server.url, exact.email, exact.password);
    await mp.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    await mp.goto(`${server.url}/subscription`);
    await mp.getByRole('tab', { name: 'My Subscription' }).click();
    await mp
      .getByText('Payment received: 0.005 BTC for your annual plan, confirmed on the Bitcoin network.', { exact: false })
      .waitFor({ timeout: T });
    await memberCtx.close();

    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1440, height: 1000 } });
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.waitForURL(`${server.url}/admin`, { timeout: T });
      const shortRow = rowOf(page, short.email);
      await shortRow.getByText('Underpaid').waitFor({ timeout: T });
      await shortRow.getByText('0.00499 of 0.005 BTC received').waitFor({ timeout: T });
      await shortRow.getByText('1 of 1 confirmation').waitFor({ timeout: T });
      const exactRow = rowOf(page, exact.email);
      await exactRow.getByText('Confirmed').waitFor({ timeout: T });
      await exactRow.getByText('0.005 of 0.005 BTC received').waitFor({ timeout: T });
      const height = await exactRow.getByText(/^Block \d/).textContent();
      expect(height).toMatch(/^Block \d+/);

      // The underpayment: the override dialog names the chain's refusal and requires a reason.
      await shortRow.getByRole('button', { name: `Verify & Activate payment of ${short.email}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Verify without chain evidence' });
      await dialog.waitFor({ timeout: T });
      await dialog.getByText('The transaction pays less than the price', { exact: false }).waitFor({ timeout: T });
      await dialog.getByRole('button', { name: 'Verify Anyway' }).click();
      await dialog.getByText('Please say why you verify anyway').waitFor({ timeout: T });
      const reason = 'Paid the missing 1,000 sats in a second transaction';
      await dialog.getByLabel('Reason *').fill(reason);
      await dialog.getByRole('button', { name: 'Verify Anyway' }).click();
      await page.getByText('Payment verified and subscription activated!').waitFor({ timeout: T });
      const events = await server.ctx.store.readStream(`payment-${underpaid.paymentId}`);
      expect(events.find((e) => e.type === 'PaymentVerified')?.data).toMatchObject({
        override: { reason, chainStatus: 'underpaid' },
        evidence: { txid: underpaid.txid, receivedSats: ANNUAL_SATS - 1_000, blockHash: block },
      });

      // The confirmed payment: verified in one click, no dialog.
      await exactRow.getByRole('button', { name: `Verify & Activate payment of ${exact.email}` }).click();
      await rowOf(page, exact.email).waitFor({ state: 'detached', timeout: T });
      const verified = (await server.ctx.store.readStream(`payment-${paid.paymentId}`)).find((e) => e.type === 'PaymentVerified');
      expect(verified?.data).toMatchObject({ evidence: { txid: paid.txid, receivedSats: ANNUAL_SATS, blockHash: block } });
      expect(verified?.data).not.toHaveProperty('override');
    } finally {
      await ctx.close();
    }
  });
});
