/**
 * The desktop console's Live shows screen (issue 43) in Debian's Chromium through the dev bridge (the
 * renderer of Electron, the same desktop service and relays as its main process) against a real API
 * server: an editor schedules a show on the shared LiveShowsAdmin and is shown its stream key once
 * (gone once copied); a support member (`live.chat`, no `videos`) opens the show's chat room from the
 * list of shows; a member's message appears in it live, relayed by the main process's socket (the
 * renderer opens none: its CSP forbids it); support mutes its author (their next message is refused
 * 403 `live.chat_muted`), unmutes them (their next one arrives) and deletes the message (gone from
 * the room).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMember } from '../../api/test/support.js';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService, type DesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { acceptedStaff, adminToken, apiClient, startTestServer, type TestServer, tmpDir } from './fixtures.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-live-e2e-');
const T = 20_000;
let server: TestServer;
let rendererDir: string;
let browser: Browser;
const bridges: HttpBridge[] = [];
const services: DesktopService[] = [];

beforeAll(async () => {
  const [dir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    startTestServer('sqlite', { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } }).then((s) => (server = s)),
  ]);
  rendererDir = dir as string;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  for (const s of services) {
    s.chat.stop();
    s.showChat.stop();
  }
  await browser?.close();
  for (const b of bridges) await b.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A console of its own (session, desktop service, bridge) with `email` signed in; the page. */
async function consoleOf(name: string, email: string, password: string): Promise<Page> {
  const session = createSession({ config: fileConfigStore(path.join(work, `config-${name}`)), secrets: memorySecretStore() });
  const service = createDesktopService({ session, chooseFiles: async () => [], openExternal: async () => {} });
  services.push(service);
  const bridge = await startHttpBridge({ service, rendererDir });
  bridges.push(bridge);
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(bridge.url);
  await page.locator('#server-url').fill(server.url);
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  return page;
}

describe('the console’s Live shows screen (dev bridge)', () => {
  it('an editor schedules a show (key shown once); support moderates its room through the relay', async () => {
    const owner = await adminToken(server);
    const api = apiClient(server.url);

    const editor = await acceptedStaff(server, api, owner, 'editor');
    const ed = await consoleOf('editor', editor.email, editor.password);
    await ed.getByRole('button', { name: 'Live shows' }).click();
    await ed.getByText('No show scheduled yet.').waitFor({ timeout: T });
    await ed.getByLabel('Title').fill('Console show');
    await ed.getByLabel('Access level').selectOption('free');
    await ed.getByRole('button', { name: 'Schedule show' }).click();
    const panel = ed.getByTestId('live-key-panel');
    await panel.waitFor({ timeout: T });
    expect(await panel.textContent()).toContain('Shown once.');
    const streamKey = await ed.getByTestId('live-stream-key').inputValue();
    expect(streamKey.length).toBeGreaterThan(20);
    await ed.getByRole('button', { name: 'I have copied it' }).click();
    await ed.getByRole('button', { name: 'Schedule show' }).waitFor({ timeout: T });
    expect(await ed.content()).not.toContain(streamKey);
    // The editor has no `live.chat`: the title is no way into the room.
    await ed.getByTestId('live-show-row').filter({ hasText: 'Console show' }).waitFor({ timeout: T });
    expect(await ed.getByRole('button', { name: 'Open the chat of Console show' }).count()).toBe(0);

    const support = await acceptedStaff(server, api, owner, 'support');
    const sup = await consoleOf('support', support.email, support.password);
    await sup.getByRole('button', { name: 'Live shows' }).click();
    const listed = sup.getByRole('listitem').filter({ hasText: 'Console show' });
    await listed.getByRole('button', { name: 'Open chat' }).click();
    await sup.getByRole('heading', { name: 'Console show' }).waitFor({ timeout: T });
    await sup.locator('[data-testid=show-chat][data-connected=true]').waitFor({ timeout: T });
    await sup.getByText('No messages yet.').waitFor({ timeout: T });

    const shows = await api.get('/live/shows', (await approvedMember(api, { firstName: 'Lena', lastName: 'Viewer' })).token);
    const showId = (shows.body.data.shows as { id: string; title: string }[]).find((s) => s.title === 'Console show')?.id ?? '';
    expect(showId).not.toBe('');
    const member = await approvedMember(api, { firstName: 'Anna', lastName: 'Audience' });
    const posted = await api.post(`/live/shows/${showId}/chat`, { text: 'Hello, console' }, member.token);
    expect(posted.status).toBe(201);

    // Pushed by the main process's relay, not read again: the room shows it without a reload.
    const line = sup.getByTestId('show-chat-message').filter({ hasText: 'Hello, console' });
    await line.waitFor({ timeout: T });
    expect(await line.textContent()).toContain('Anna A.');

    await line.getByRole('button', { name: 'Mute Anna A. in this show' }).click();
    await sup.getByText('Anna A. is muted in this show’s chat.').waitFor({ timeout: T });
    const refused = await api.post(`/live/shows/${showId}/chat`, { text: 'Still here?' }, member.token);
    expect(refused).toMatchObject({ status: 403, body: { success: false, code: 'live.chat_muted' } });

    // The room opened again (another screen, a restart) still knows who is muted: staff's read lists them.
    await sup.getByRole('button', { name: '← Back to the shows' }).click();
    await listed.getByRole('button', { name: 'Open chat' }).click();
    await sup.locator('[data-testid=show-chat][data-connected=true]').waitFor({ timeout: T });
    // Unmute, beside the member's message: they may write again.
    await line.getByRole('button', { name: 'Unmute Anna A. in this show' }).click();
    await sup.getByText('Anna A. may write in this show’s chat again.').waitFor({ timeout: T });
    await line.getByRole('button', { name: 'Mute Anna A. in this show' }).waitFor({ timeout: T });
    const again = await api.post(`/live/shows/${showId}/chat`, { text: 'Back again' }, member.token);
    expect(again.status).toBe(201);
    await sup.getByTestId('show-chat-message').filter({ hasText: 'Back again' }).waitFor({ timeout: T });

    await line.getByRole('button', { name: 'Delete the message from Anna A.' }).click();
    await line.waitFor({ state: 'detached', timeout: T });
    const read = await api.get(`/live/shows/${showId}/chat`, member.token);
    expect((read.body.data.messages as { text: string }[]).map((m) => m.text)).not.toContain('Hello, console');
  }, 180_000);
});
