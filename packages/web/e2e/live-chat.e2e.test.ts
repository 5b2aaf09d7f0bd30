/**
 * The live shows' web screens in Chromium against the real server (issue 43): the owner schedules a
 * show on /admin/live and is shown the OBS server and the stream key once (gone from the page once
 * dismissed); a new key is shown once again, and that key goes live (ffmpeg pushes RTMP as OBS
 * would). The show's page has its chat room beside the player: a message member A posts appears on
 * member B's open page without a reload (the room's WebSocket); the owner (staff with `live.chat`)
 * mutes A, whose page says so at once above a closed box (B's does not), unmutes A, who writes
 * again, and deletes the message, which disappears from B's page too. The owner ends the show after a confirmation; its page says so, its chat read only.
 * axe-core checks both screens (in contexts without the CSP, axe being an injected script); A's
 * and the owner's pages run under the CSP, sockets included, with no violation.
 */
import type { ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, approvedMember, freePort, pushRtmp, startTestServer, TEST_ADMIN, type TestServer } from '../../api/test/support';
import { axeViolations } from './axe';
import { ageVerifiedContext, collectCspViolations, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const T = 30_000;
const MEMBER_A = { email: 'live.chat.a@example.test', password: 'member-password-1', firstName: 'Anna', lastName: 'Alpha' };
const MEMBER_B = { email: 'live.chat.b@example.test', password: 'member-password-1', firstName: 'Bert', lastName: 'Beta' };

let server: TestServer;
let browser: Browser;
let pusher: ChildProcess | undefined;
let rtmp: string;
const contexts: BrowserContext[] = [];
const cspViolations: string[] = [];
let showId = '';
let streamKey = '';
let memberA: Page;

/**
 * A signed-in page. `axe`: a context without the CSP (axe is injected as an inline script); every
 * other page's CSP violations are collected, and the test asserts there are none.
 */
async function pageFor(email: string, password: string, landing: (u: URL) => boolean, axe = false): Promise<Page> {
  const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 }, bypassCSP: axe });
  if (!axe) await collectCspViolations(ctx, cspViolations);
  contexts.push(ctx);
  const page = await ctx.newPage();
  await signIn(page, server.url, email, password);
  await page.waitForURL(landing, { timeout: T });
  return page;
}

describe('live shows: the admin screen and the chat room in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    const port = await freePort();
    rtmp = `rtmp://127.0.0.1:${port}/live`;
    server = await startTestServer('sqlite', {
      env: { WEB_DIST, LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1', AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
    });
    const api = apiClient(server.url);
    await approvedMember(api, { ...MEMBER_A, dateOfBirth: '1990-04-05' });
    await approvedMember(api, { ...MEMBER_B, dateOfBirth: '1991-05-06' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    pusher?.kill('SIGKILL');
    for (const ctx of contexts) await ctx.close();
    await browser?.close();
    await server?.close();
  });

  it('the owner schedules a show on /admin/live and is shown the stream key once', async () => {
    const page = await pageFor(TEST_ADMIN.email, TEST_ADMIN.password, (u) => u.pathname === '/admin', true);
    await page.getByRole('link', { name: 'Live shows' }).click();
    await page.getByRole('heading', { name: 'Live shows', level: 1 }).waitFor({ timeout: T });
    await page.getByText('No show scheduled yet.').waitFor({ timeout: T });
    await page.getByLabel('Title').fill('Friday chat show');
    await page.getByLabel('Access level').selectOption('free');
    await page.getByRole('button', { name: 'Schedule show' }).click();

    const panel = page.getByTestId('live-key-panel');
    await panel.waitFor({ timeout: T });
    expect(await panel.textContent()).toContain('Shown once.');
    streamKey = await page.getByTestId('live-stream-key').inputValue();
    expect(streamKey.length).toBeGreaterThan(20);
    expect(await page.getByTestId('live-ingest-url').inputValue()).toMatch(/^rtmp:\/\/.+\/live$/);
    const row = page.getByTestId('live-show-row').filter({ hasText: 'Friday chat show' });
    await row.getByText('Scheduled').waitFor({ timeout: T });
    expect(await row.textContent()).toContain('Free');
    showId = (await row.getByRole('link', { name: 'Friday chat show' }).getAttribute('href'))?.split('/').pop() ?? '';
    expect(showId).not.toBe('');
    expect(await axeViolations(page, 'web /admin/live (key shown)')).toEqual([]);
    await screenshot(page, 'live-admin-01-key-once');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Schedule show' }).waitFor({ timeout: T });
    expect(await page.content()).not.toContain(streamKey);
    await page.reload();
    await row.waitFor({ timeout: T });
    expect(await page.content()).not.toContain(streamKey);

    // Lost it: a new key, shown once again (the old one stops working; the push below uses the new one).
    await row.getByRole('button', { name: 'New key for Friday chat show' }).click();
    await panel.waitFor({ timeout: T });
    const rotated = await page.getByTestId('live-stream-key').inputValue();
    expect(rotated).not.toBe(streamKey);
    streamKey = rotated;
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await panel.waitFor({ state: 'detached', timeout: T });
  }, 90_000);

  it("the pushed show's page has its chat room; A's message reaches B's open page, and staff's delete takes it away", async () => {
    pusher = pushRtmp(`${rtmp}/${streamKey}`, { seconds: 120 });
    const a = await pageFor(MEMBER_A.email, MEMBER_A.password, (u) => !u.pathname.startsWith('/login'));
    const b = await pageFor(MEMBER_B.email, MEMBER_B.password, (u) => !u.pathname.startsWith('/login'), true);
    const owner = await pageFor(TEST_ADMIN.email, TEST_ADMIN.password, (u) => u.pathname === '/admin');
    for (const p of [a, b, owner]) await p.goto(`${server.url}/live/${showId}`);
    // The key shown once is the key OBS streams with: the page turns into the player by itself.
    await a.getByTestId('live-video').waitFor({ timeout: 60_000 });
    for (const p of [a, b, owner]) {
      await p.getByRole('heading', { name: 'Chat', level: 2 }).waitFor({ timeout: T });
      // Each page's socket is open before anything is posted: what follows must come by a push.
      await p.locator('[data-testid=show-chat][data-connected=true]').waitFor({ timeout: T });
    }

    await a.getByLabel('Your message').fill('Hello from <b>Anna</b>');
    await a.getByRole('button', { name: 'Send' }).click();
    const onB = b.getByTestId('show-chat-message').filter({ hasText: 'Hello from <b>Anna</b>' });
    await onB.waitFor({ timeout: T });
    // Display names only: never an e-mail address.
    expect(await onB.textContent()).toContain('Anna A.');
    expect(await b.getByTestId('show-chat').textContent()).not.toContain(MEMBER_A.email);
    // Members get no moderation buttons.
    expect(await b.getByRole('button', { name: /^Delete the message/ }).count()).toBe(0);
    expect(await axeViolations(b, 'web /live/:id with chat')).toEqual([]);
    await screenshot(b, 'live-chat-01-member');

    const onOwner = owner.getByTestId('show-chat-message').filter({ hasText: 'Hello from <b>Anna</b>' });
    await onOwner.waitFor({ timeout: T });
    // Muted: A's page says so before A types (pushed to A's socket only), in words above a closed box.
    await onOwner.getByRole('button', { name: 'Mute Anna A. in this show' }).click();
    await owner.getByText('Anna A. is muted in this show’s chat.').waitFor({ timeout: T });
    await expect.poll(() => a.getByTestId('show-chat-muted').textContent(), { timeout: T }).toMatch(/muted you/);
    expect(await a.getByLabel('Your message').isDisabled()).toBe(true);
    expect(await b.getByTestId('show-chat-muted').count()).toBe(0);
    // Unmuted: the notice goes at once, and A writes again.
    await onOwner.getByRole('button', { name: 'Unmute Anna A. in this show' }).click();
    await a.getByTestId('show-chat-muted').waitFor({ state: 'detached', timeout: T });
    await a.getByLabel('Your message').fill('Am I still here?');
    await a.getByRole('button', { name: 'Send' }).click();
    await b.getByTestId('show-chat-message').filter({ hasText: 'Am I still here?' }).waitFor({ timeout: T });

    await onOwner.getByRole('button', { name: 'Delete the message from Anna A.' }).click();
    await onB.waitFor({ state: 'detached', timeout: T });
    await onOwner.waitFor({ state: 'detached', timeout: T });
    await a.getByTestId('show-chat-message').filter({ hasText: 'Hello from <b>Anna</b>' }).waitFor({ state: 'detached', timeout: T });
    expect(cspViolations).toEqual([]);
    memberA = a;
  }, 150_000);

  it('the owner ends the show after a confirmation; its page says so and its chat is read only', async () => {
    const page = await pageFor(TEST_ADMIN.email, TEST_ADMIN.password, (u) => u.pathname === '/admin');
    await page.goto(`${server.url}/admin/live`);
    const row = page.getByTestId('live-show-row').filter({ hasText: 'Friday chat show' });
    await row.getByText('Live').waitFor({ timeout: T });
    await row.getByRole('button', { name: 'End show: Friday chat show' }).click();
    const dialog = page.getByRole('dialog', { name: 'End this show?' });
    await dialog.getByRole('button', { name: 'End show' }).click();
    await row.getByText('Ended').waitFor({ timeout: T });
    expect(await row.getByRole('button').count()).toBe(0);

    await memberA.goto(`${server.url}/live/${showId}`);
    await expect.poll(() => memberA.getByTestId('live-message').textContent(), { timeout: T }).toBe('The show has ended');
    await memberA.getByText('The show has ended: its chat is closed.').waitFor({ timeout: T });
    expect(await memberA.getByLabel('Your message').count()).toBe(0);
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
