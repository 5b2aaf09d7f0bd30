/**
 * Leak tracing in the desktop console's renderer, in Chromium through the dev bridge (the same
 * desktop service as Electron's main process): the admin signs in, opens "Leak tracing", picks a
 * local file with "Choose file…" (the bridge's chooser stands in for the native dialog), sends it —
 * the main side streams it from disk as multipart — and the screen polls the examination and says
 * "No match" in plain words; the server recorded the examination with the file's SHA-256.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { adminToken, apiClient, makeVideo, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './fixtures.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-e2e-leaks-');
let server: TestServer;
let bridge: HttpBridge;
let browser: Browser;
let page: Page;
let copy: string;

beforeAll(async () => {
  const [rendererDir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    (async () => {
      server = await startTestServer('sqlite', { env: { FORENSIC_WATERMARK: 'true' } });
    })(),
  ]);
  fs.mkdirSync(path.join(work, 'media'));
  copy = makeVideo(path.join(work, 'media'), 'leaked copy.mp4', { seconds: 2, width: 320, height: 240 });
  const session = createSession({ config: fileConfigStore(path.join(work, 'config')), secrets: memorySecretStore() });
  const service = createDesktopService({ session, chooseFiles: async () => [copy], openExternal: async () => {} });
  bridge = await startHttpBridge({ service, rendererDir: rendererDir as string });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await bridge?.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('leak tracing in the desktop renderer (dev bridge)', () => {
  it('picks a local file, sends it through the main side, and shows "No match" once examined', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(bridge.url);
    await page.locator('#server-url').fill(server.url);
    await page.locator('#email').fill(TEST_ADMIN.email);
    await page.locator('#password').fill(TEST_ADMIN.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Bulk Upload' }).waitFor();

    await page.getByRole('button', { name: 'Leak tracing' }).click();
    await page.getByRole('heading', { name: 'Leak tracing' }).waitFor();
    await page.getByText('No leaked copy examined yet.').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Choose file…' }).click();
    await expect.poll(() => page.getByTestId('leak-file-name').textContent(), { timeout: 10_000 }).toBe('leaked copy.mp4');
    await page.getByRole('button', { name: 'Examine copy' }).click();
    const outcome = page.locator('[data-testid=leak-outcome][data-status=done]');
    await outcome.waitFor({ timeout: 60_000 });
    expect(String(await outcome.textContent())).toContain('No match: no member is named.');
    await page.locator('.leak-history tbody tr').first().getByText('no match').waitFor({ timeout: 20_000 });

    const sha256 = createHash('sha256').update(fs.readFileSync(copy)).digest('hex');
    const list = await apiClient(server.url).get('/admin/leaks/examinations', await adminToken(server));
    expect(list.body.data.examinations[0]).toMatchObject({ sha256, fileName: 'leaked copy.mp4', outcome: 'no-match' });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
