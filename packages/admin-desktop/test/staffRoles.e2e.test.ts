/**
 * The desktop console by staff role (issue 42), in Chromium through the dev bridge (the same desktop
 * service as Electron's main process): an editor invited by the owner signs in and the console shows
 * the dashboard's video sections, the bulk upload and the live shows, no chat, no leak tracing, no
 * approval queue or payments; a support member gets the dashboard, the chat and the live shows (a
 * show's chat room: liveShows.e2e.test.ts), no bulk upload and no leak tracing.
 * The signed-in line names the role.
 */

import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { acceptedStaff, adminToken, apiClient, startTestServer, type TestServer, tmpDir } from './fixtures.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-e2e-staff-');
let server: TestServer;
let rendererDir: string;
let browser: Browser;
const bridges: HttpBridge[] = [];

beforeAll(async () => {
  const [dir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    (async () => {
      server = await startTestServer('sqlite');
    })(),
  ]);
  rendererDir = dir as string;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const b of bridges) await b.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A console of its own (session, desktop service, bridge) with `email` signed in; the page. */
async function consoleOf(name: string, email: string, password: string): Promise<{ page: Page }> {
  const session = createSession({ config: fileConfigStore(path.join(work, `config-${name}`)), secrets: memorySecretStore() });
  const service = createDesktopService({ session, chooseFiles: async () => [], openExternal: async () => {} });
  const bridge = await startHttpBridge({ service, rendererDir });
  bridges.push(bridge);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(bridge.url);
  await page.locator('#server-url').fill(server.url);
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  return { page };
}

const navButtons = (page: Page) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button').allTextContents();

describe('the desktop console by staff role (dev bridge)', () => {
  it('an editor gets the bulk upload and the video sections; support the dashboard and the chat', async () => {
    const owner = await adminToken(server);
    const api = apiClient(server.url);

    const editor = await acceptedStaff(server, api, owner, 'editor');
    const ed = await consoleOf('editor', editor.email, editor.password);
    await ed.page.getByRole('heading', { name: 'Bulk Upload' }).waitFor();
    expect(await navButtons(ed.page)).toEqual(['Dashboard', 'Bulk upload', 'Live shows']);
    await ed.page.getByText(`${editor.email} (Editor)`).waitFor();
    await ed.page.getByRole('button', { name: 'Dashboard' }).click();
    await ed.page.getByRole('heading', { name: 'Upload New Video' }).waitFor();
    await ed.page.waitForLoadState('networkidle');
    expect(await ed.page.locator('caption', { hasText: 'Pending User Approvals' }).count()).toBe(0);
    expect(await ed.page.locator('caption', { hasText: 'Pending Payment Verifications' }).count()).toBe(0);

    const support = await acceptedStaff(server, api, owner, 'support');
    const sup = await consoleOf('support', support.email, support.password);
    await sup.page.getByText(`${support.email} (Support)`).waitFor();
    expect((await navButtons(sup.page)).map((t) => t.replace(/\d.*$/, '').trim())).toEqual(['Dashboard', 'Chat', 'Live shows']);
    await sup.page.waitForLoadState('networkidle');
    expect(await sup.page.getByRole('heading', { name: 'Upload New Video' }).count()).toBe(0);
    expect(await sup.page.locator('caption', { hasText: 'Pending Payment Verifications' }).count()).toBe(0);
  }, 120_000);
});
