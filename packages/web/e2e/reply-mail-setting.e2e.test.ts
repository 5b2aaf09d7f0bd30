/**
 * The reply mail's opt-out on the account page in Chromium against the real server: the mail's
 * settings link (`/account#notifications`) shows the "E-mail notifications" card with the box
 * ticked (on by default); unticking it is saved (the API answers off), and it stays off after a reload.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 15_000;
const LABEL = 'E-mail me when the team replies while I am away';
let server: TestServer;
let browser: Browser;

describe('reply mail setting in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('the settings link shows the box ticked; unticked, it is saved and stays off', async () => {
    const api = apiClient(server.url);
    const m = {
      email: `reply-mail-${Date.now().toString(36)}@example.test`,
      password: 'member-password-1',
      firstName: 'Mia',
      lastName: 'Member',
      dateOfBirth: '1990-05-01',
      agreeToTerms: true,
    };
    const registered = await api.post('/auth/register', m);
    expect(registered.status).toBe(201);
    const admin = await api.post('/auth/login', TEST_ADMIN);
    expect((await api.post(`/admin/users/${registered.body.data.user.id}/approve`, undefined, admin.body.data.token)).status).toBe(200);

    const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    try {
      await signIn(page, server.url, m.email, m.password);
      await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
      await page.goto(`${server.url}/account#notifications`);
      const box = page.getByLabel(LABEL);
      await box.waitFor({ state: 'visible', timeout: T });
      expect(await box.isChecked()).toBe(true);
      await box.uncheck();
      await page.getByText('No more e-mails about new replies.').waitFor({ state: 'visible', timeout: T });
      const token = (await api.post('/auth/login', { email: m.email, password: m.password })).body.data.token as string;
      expect((await api.get('/users/me/notifications', token)).body.data).toEqual({ chatReplyMail: false });
      await page.reload();
      await page.getByLabel(LABEL).waitFor({ state: 'visible', timeout: T });
      expect(await page.getByLabel(LABEL).isChecked()).toBe(false);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});
