/**
 * The desktop console's chat inbox in Debian's Chromium through the dev bridge (the renderer of
 * Electron, the same desktop service and chat feed as its main process) against a real API server:
 * the nav badge counts the conversations with unread messages; the shared ChatInbox lists the VIP
 * (annual) conversation first although the monthly member has waited longer; a member's new
 * message appears live in the open thread, relayed from the main process's socket (the renderer
 * opens no WebSocket: its CSP forbids it); the admin answers and the member reads the answer; the
 * main process's notifier recorded the member's message, VIP first.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember, billingTestKit, HASH } from '../../api/test/support.js';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import type { ChatNotification } from '../src/main/chatLive.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService, type DesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './fixtures.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-chat-e2e-');
const T = 20_000;
let server: TestServer;
let service: DesktopService;
let bridge: HttpBridge;
let browser: Browser;
let page: Page;
const notifications: ChatNotification[] = [];

beforeAll(async () => {
  const [rendererDir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    startTestServer('sqlite', { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } }).then((s) => (server = s)),
  ]);
  const session = createSession({ config: fileConfigStore(path.join(work, 'config')), secrets: memorySecretStore() });
  service = createDesktopService({
    session,
    chooseFiles: async () => [],
    openExternal: async () => {},
    thumbnailDir: path.join(work, 'thumbs'),
    notifier: { notify: (n) => notifications.push(n) },
    // A browser tab driven by a test is never the focused console window.
    isFocused: () => false,
  });
  bridge = await startHttpBridge({ service, rendererDir: rendererDir as string });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
});

afterAll(async () => {
  service?.chat.stop();
  await browser?.close();
  await bridge?.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('admin desktop renderer in Chromium (dev bridge): the chat inbox', () => {
  it('lists the VIP conversation first, shows a new member message live, and the admin answers', async () => {
    const kit = await billingTestKit(server);
    let hash = 9800;
    async function subscribed(planType: 'monthly' | 'annual', firstName: string) {
      const m = await approvedMember(kit.api, { firstName, lastName: 'Member' });
      const paid = await kit.submit(m, { planType, btcAmount: planType === 'annual' ? '0.005' : '0.0005', transactionHash: HASH(hash++) });
      expect(paid.status).toBe(201);
      expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
      return m;
    }
    const say = async (m: { token: string }, text: string) =>
      expect((await kit.api.post('/chat/messages', { text }, m.token)).status).toBe(201);
    const mona = await subscribed('monthly', 'Mona');
    const vera = await subscribed('annual', 'Vera');
    // Mona has waited longer; Vera is VIP (annual) and still comes first.
    await say(mona, 'Hello from Mona');
    server.clock.advance(5 * 60_000);
    await say(vera, 'Hello from Vera');

    const pageErrors: string[] = [];
    const sockets: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(bridge.url);
    await page.locator('#server-url').fill(server.url);
    await page.locator('#email').fill(TEST_ADMIN.email);
    await page.locator('#password').fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Bulk Upload' }).waitFor({ timeout: T });

    // The nav's badge: two conversations with unread member messages.
    const chatNav = page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /^Chat/ });
    await expect.poll(() => chatNav.textContent(), { timeout: T }).toBe('Chat2 unread conversations');
    await chatNav.click();
    await page.getByRole('heading', { name: 'Member chat' }).waitFor({ timeout: T });
    await expect.poll(() => service.chat.state().status, { timeout: T }).toBe('live');

    // VIP first, with the badge, the unread count and the waiting time.
    const conversations = page.getByRole('navigation', { name: 'Conversations' }).getByRole('button');
    await expect.poll(() => conversations.count(), { timeout: T }).toBe(2);
    const first = (await conversations.nth(0).textContent()) ?? '';
    const second = (await conversations.nth(1).textContent()) ?? '';
    expect(first).toMatch(/^Vera Member\s*VIP\s*1 unread\s*waiting \d+ min$/);
    expect(second).toMatch(/^Mona Member\s*1 unread\s*waiting \d+ min$/);
    expect(second).not.toContain('VIP');

    // Opening Vera's conversation reads it: the nav's badge drops to one.
    await conversations.nth(0).click();
    await page.locator('.chat-text', { hasText: 'Hello from Vera' }).waitFor({ timeout: T });
    await expect.poll(() => chatNav.textContent(), { timeout: T }).toBe('Chat1 unread conversations');

    // Vera writes again: it appears in the open thread without a reload, relayed by the main process.
    const sentAt = Date.now();
    await say(vera, 'Are you there? <b>not bold</b>');
    const live = page.locator('.chat-text', { hasText: 'Are you there?' });
    await live.waitFor({ timeout: T });
    console.log(`[desktop chat e2e] member message shown ${Date.now() - sentAt} ms after the POST`);
    expect(await live.textContent()).toBe('Are you there? <b>not bold</b>');
    expect(await page.locator('.chat-text b').count()).toBe(0);
    await expect.poll(() => notifications.map((n) => n.title), { timeout: T }).toContain('VIP · Vera Member');
    expect(notifications.find((n) => n.body.startsWith('Are you there?'))).toEqual({
      title: 'VIP · Vera Member',
      body: 'Are you there? <b>not bold</b>',
      userId: vera.id,
    });

    // The admin answers; the member reads it.
    await page.getByLabel('Reply').fill('Yes Vera, the team is here');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.chat-text', { hasText: 'Yes Vera, the team is here' }).waitFor({ timeout: T });
    await expect
      .poll(async () => ((await kit.api.get('/chat/messages', vera.token)).body.data.messages as { text: string }[]).map((m) => m.text), {
        timeout: T,
      })
      .toEqual(['Hello from Vera', 'Are you there? <b>not bold</b>', 'Yes Vera, the team is here']);
    await expect.poll(() => conversations.nth(0).textContent(), { timeout: T }).toMatch(/^Vera Member\s*VIP\s*answered$/);
    // The team's own reply notified no one.
    expect(notifications.filter((n) => n.body.includes('the team is here'))).toEqual([]);

    // The renderer opened no socket of its own; nothing broke.
    expect(sockets).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
