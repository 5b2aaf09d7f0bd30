/**
 * The live chat in two real browsers across two API processes on PostgreSQL (issue 30): a
 * subscribed member on process A and the admin on process B (a child server, `main.ts` as an
 * operator runs it) exchange messages, each appearing on the other's screen without a reload,
 * pushed through the chat WebSocket and PostgreSQL's LISTEN/NOTIFY (the sockets opened from each
 * process's own origin, which the socket's Origin check admits). Text is shown as typed, never as
 * HTML, and isolated (dir="auto", unicode-bidi: isolate).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approvedMember,
  billingTestKit,
  type ChildServer,
  freshStore,
  HASH,
  killHard,
  launchServer,
  startTestServer,
  TEST_ADMIN,
  TEST_DATABASE_URL,
  type TestServer,
  testEnv,
} from '../../api/test/support';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const T = 20_000;
if (!TEST_DATABASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set in CI');

describe.runIf(Boolean(TEST_DATABASE_URL))('live chat in two browsers across two API processes (needs TEST_DATABASE_URL)', () => {
  let a: TestServer;
  let b: ChildServer;
  let browser: Browser;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    const store = await freshStore('postgres');
    a = await startTestServer('postgres', { store, env: { WEB_DIST, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    // B signs and reads tokens and second-factor secrets like A (the same secrets, one database).
    const same = testEnv();
    b = await launchServer({
      ...store.env,
      WEB_DIST,
      TOKEN_SECRET: same.TOKEN_SECRET as string,
      MFA_KEY_SECRET: same.MFA_KEY_SECRET as string,
      AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000',
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (b) await killHard(b);
    await a?.close();
  });

  async function context(): Promise<BrowserContext> {
    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    await collectCspViolations(ctx, cspViolations);
    return ctx;
  }

  it('a member on A and the admin on B exchange messages in real time', async () => {
    const kit = await billingTestKit(a);
    const member = await approvedMember(kit.api, { firstName: 'Chatty', lastName: 'Member' });
    const paid = await kit.submit(
      { id: member.id, email: member.email, token: member.token },
      {
        planType: 'annual',
        btcAmount: '0.005',
        transactionHash: HASH(777),
      },
    );
    expect(paid.status).toBe(201);
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);

    const memberCtx = await context();
    const adminCtx = await context();
    const memberPage: Page = await memberCtx.newPage();
    const adminPage: Page = await adminCtx.newPage();
    try {
      await signIn(memberPage, a.url, member.email, member.password);
      await memberPage.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      // The header links the chat for a member with access.
      await memberPage.getByRole('link', { name: 'Chat' }).click();
      await memberPage.getByRole('heading', { name: 'Chat with the team' }).waitFor({ timeout: T });

      // The admin's socket is held back (its ticket request waits) until the member's first message
      // is stored: the inbox read its list before that message and no socket saw it pushed, so the
      // socket's opening must bring it (the race a loaded machine runs into by itself).
      let releaseTicket = () => {};
      const ticketHeld = new Promise<void>((resolve) => {
        releaseTicket = resolve;
      });
      await adminPage.route('**/api/chat/ticket', async (route) => {
        await ticketHeld;
        await route.continue();
      });
      await signIn(adminPage, b.url, TEST_ADMIN.email, TEST_ADMIN.password);
      await adminPage.waitForURL(`${b.url}/admin`, { timeout: T });
      await adminPage.getByRole('heading', { name: 'Member chat' }).waitFor({ timeout: T });
      await adminPage.getByText('No conversations yet.').waitFor({ timeout: T });

      // The member writes (markup and a link, shown as typed).
      const question = 'Hello team <b>not bold</b> https://example.test/x';
      await memberPage.getByLabel('Message', { exact: true }).fill(question);
      await memberPage.getByRole('button', { name: 'Send' }).click();
      await memberPage.locator('.chat-text', { hasText: question }).waitFor({ timeout: T });
      releaseTicket();

      // It reaches the admin's inbox on the other process: VIP, unread, waiting.
      const conversation = adminPage.getByRole('button', { name: /Chatty Member/ });
      await conversation.waitFor({ timeout: T });
      await expect.poll(() => conversation.textContent(), { timeout: T }).toMatch(/VIP/);
      expect(await conversation.textContent()).toMatch(/1 unread/);
      expect(await conversation.textContent()).toMatch(/waiting \d+ min/);
      await conversation.click();
      const shown = adminPage.locator('.chat-text', { hasText: question });
      await shown.waitFor({ timeout: T });
      expect(await shown.textContent()).toBe(question);
      expect(await adminPage.locator('.chat-text b').count()).toBe(0);
      expect(await adminPage.locator('.chat-text a').count()).toBe(0);
      // What members type is shown isolated (issue 44): a direction override stored before the text
      // policy cannot reorder the text around the message or the name.
      expect(await shown.evaluate((e) => [e.getAttribute('dir'), getComputedStyle(e).unicodeBidi])).toEqual(['auto', 'isolate']);
      const name = adminPage.locator('.chat-name', { hasText: 'Chatty Member' });
      expect(await name.evaluate((e) => [e.getAttribute('dir'), getComputedStyle(e).unicodeBidi])).toEqual(['auto', 'isolate']);
      await screenshot(adminPage, '90-chat-admin-inbox');

      // The admin replies; the member's open page shows it without a reload.
      const reply = `Hi Chatty, the team here ${Date.now()}`;
      await adminPage.getByLabel('Reply').fill(reply);
      const sentAt = Date.now();
      await adminPage.getByRole('button', { name: 'Send', exact: true }).click();
      await memberPage.locator('.chat-text', { hasText: reply }).waitFor({ timeout: T });
      console.log(`[chat e2e] admin on B → member on A shown after ${Date.now() - sentAt} ms (click to render)`);
      // The inbox's answer time per tier counts the VIP's answered wait.
      await adminPage.getByText(/Median answer, last 30 days: VIP \d+ min \(1 answered\)/).waitFor({ timeout: T });
      await screenshot(memberPage, '91-chat-member');

      // And back: the member's next message appears in the admin's open thread.
      const followUp = 'Thanks, that helps!';
      await memberPage.getByLabel('Message', { exact: true }).fill(followUp);
      await memberPage.getByRole('button', { name: 'Send' }).click();
      await adminPage.locator('.chat-text', { hasText: followUp }).waitFor({ timeout: T });
      expect(cspViolations).toEqual([]);
    } finally {
      await memberCtx.close();
      await adminCtx.close();
    }
  }, 180_000);
});
