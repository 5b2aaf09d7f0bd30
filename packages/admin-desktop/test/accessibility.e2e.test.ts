/**
 * WCAG 2.2 AA (axe-core) on the desktop console's screens, the renderer in Chromium through the dev
 * bridge as in bulkUpload.e2e.test.ts: sign-in (empty and with an error), Access Denied for a
 * member, the dashboard, a member's page, the chat inbox, live shows (the key shown once) and a
 * show's chat room, and bulk upload with chosen files, at 1280 and 375 px.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeContext, axeViolations, transitionsDone } from '../../web/e2e/axe.js';
import { launchChromium } from '../../web/e2e/browser.js';
import { type HttpBridge, startHttpBridge } from '../src/bridge/httpBridge.js';
import { fileConfigStore, memorySecretStore } from '../src/main/configStore.js';
import { createDesktopService } from '../src/main/desktopService.js';
import { createSession } from '../src/main/session.js';
import { apiClient, makeTextFile, makeVideo, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './fixtures.js';
import { buildRenderer } from './renderer.js';

const work = tmpDir('desktop-a11y-');
const T = 20_000;
const MEMBER = { email: 'desk-member@example.test', password: 'member-password-1' };
let server: TestServer;
let bridge: HttpBridge;
let browser: Browser;
const files: string[] = [];

beforeAll(async () => {
  const [rendererDir] = await Promise.all([
    buildRenderer(path.join(work, 'renderer')),
    startTestServer('sqlite').then((s) => (server = s)),
  ]);
  const media = path.join(work, 'media');
  fs.mkdirSync(media);
  files.push(makeVideo(media, 'golden_hour.mp4', { seconds: 2 }), makeTextFile(media, 'notes.txt'));
  const reg = await apiClient(server.url).post('/auth/register', {
    ...MEMBER,
    firstName: 'Desk',
    lastName: 'Member',
    dateOfBirth: '1990-01-01',
    agreeToTerms: true,
  });
  expect(reg.status).toBe(201);
  const session = createSession({ config: fileConfigStore(path.join(work, 'config')), secrets: memorySecretStore() });
  const service = createDesktopService({
    session,
    chooseFiles: async () => files,
    openExternal: async () => {},
    thumbnailDir: path.join(work, 'thumbs'),
  });
  bridge = await startHttpBridge({ service, rendererDir: rendererDir as string });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await bridge?.close();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.locator('#server-url').fill(server.url);
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

describe('desktop console renderer: WCAG 2.2 AA (axe-core)', () => {
  for (const width of [1280, 375]) {
    it(`every screen at ${width} px has no violations`, async () => {
      const ctx = await axeContext(browser, { viewport: { width, height: 900 } });
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const found: string[] = [];
      const check = async (name: string) => {
        await transitionsDone(page);
        found.push(...(await axeViolations(page, `desktop ${name} [${width}px]`)));
      };
      await page.goto(bridge.url);
      await page.getByRole('button', { name: 'Sign In' }).waitFor({ timeout: T });
      await check('sign-in');

      await signIn(page, MEMBER.email, 'wrong-password-1');
      await page.getByRole('alert').first().waitFor({ timeout: T });
      await check('sign-in, error shown');

      await signIn(page, MEMBER.email, MEMBER.password);
      await page.getByRole('heading', { name: 'Access Denied' }).waitFor({ timeout: T });
      await check('access denied');
      await page.getByRole('button', { name: 'Sign in with another account' }).click();

      await signIn(page, TEST_ADMIN.email, TEST_ADMIN.password);
      await page.getByRole('heading', { name: 'Bulk Upload' }).waitFor({ timeout: T });
      await check('bulk upload, empty');
      await page.getByRole('button', { name: 'Choose files' }).click();
      await expect
        .poll(() => page.getByTestId('bulk-summary').textContent(), { timeout: 30_000 })
        .toBe('2 files · 1 videos · 1 not videos');
      await page.getByAltText('Thumbnail of golden_hour.mp4').waitFor({ timeout: T });
      await check('bulk upload, files chosen');

      await page.getByRole('button', { name: 'Dashboard' }).click();
      await page
        .getByRole('table', { name: /Pending User Approvals/ })
        .getByText(MEMBER.email)
        .waitFor({ timeout: T });
      await check('dashboard');
      await page.getByRole('button', { name: MEMBER.email }).first().click();
      await page.getByText('Desk').first().waitFor({ timeout: T });
      await check('member page');

      await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: /^Chat/ }).click();
      await page.getByRole('heading', { name: 'Member chat' }).waitFor({ timeout: T });
      await page.getByText('No conversations yet.').waitFor({ timeout: T });
      await check('chat inbox');

      await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Live shows' }).click();
      // By role: the bulk upload's hidden table has its own "Title for …" fields.
      await page.getByRole('textbox', { name: 'Title', exact: true }).fill(`Show at ${width} px`);
      await page.getByRole('button', { name: 'Schedule show' }).click();
      await page.getByTestId('live-key-panel').waitFor({ timeout: T });
      await check('live shows, key shown once');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByRole('button', { name: `Open the chat of Show at ${width} px` }).click();
      await page.locator('[data-testid=show-chat][data-connected=true]').waitFor({ timeout: T });
      await check('live show chat room');

      // The session lives in the bridge (the main process's place): end it for the next width.
      await page.getByRole('button', { name: 'Sign Out' }).click();
      await page.getByRole('button', { name: 'Sign In' }).waitFor({ timeout: T });
      await ctx.close();
      if (found.length) console.error(found.join('\n'));
      expect(found).toEqual([]);
      expect(errors).toEqual([]);
    });
  }
});
