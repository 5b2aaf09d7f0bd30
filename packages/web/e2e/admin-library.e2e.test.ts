/**
 * The admin's Video Library and payment rejection in Chromium against the real server: a video
 * uploaded through the API is listed, unpublished (gone from GET /api/videos), republished, moved to
 * another access level and deleted after the confirmation dialog; an upload through the form shows
 * up in the library; a submitted payment is rejected with a reason and leaves the pending list; a
 * runner token is made on the runners screen (shown once, with its command), opens the runner API,
 * and is revoked after the confirmation dialog.
 */
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, makeMp4, postUpload, seedMember, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, screenshot, signIn, WEB_DIST } from './browser';

const T = 15_000;
let server: TestServer;
let browser: Browser;
let base: string;
let media: string;

async function see(page: Page, text: string | RegExp, timeout = T) {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout });
}

async function adminPage(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await signIn(page, base, TEST_ADMIN.email, TEST_ADMIN.password);
  await page.waitForURL(`${base}/admin`, { timeout: T });
  return { ctx, page };
}

async function adminToken(): Promise<string> {
  const res = await apiClient(base).post('/auth/login', TEST_ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.token as string;
}

async function publicTitles(): Promise<string[]> {
  const res = await apiClient(base).get('/videos?pageSize=100');
  return res.body.data.videos.map((v: { title: string }) => v.title);
}

describe('admin video library and payment rejection in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST } });
    base = server.url;
    browser = await launchChromium();
    media = tmpDir('web-e2e-library-');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (media) fs.rmSync(media, { recursive: true, force: true });
  });

  it('lists, unpublishes, republishes, changes the access level of and deletes a video', async () => {
    const token = await adminToken();
    const up = await postUpload(
      base,
      token,
      { title: 'Library Clip', model: 'Luna Hart', accessLevel: 'premium' },
      { video: await makeMp4(media, 2) },
    );
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.data.videoId as string;

    const { ctx, page } = await adminPage();
    await page.getByRole('heading', { name: 'Video Library' }).waitFor({ timeout: T });
    const row = page.getByRole('row').filter({ hasText: 'Library Clip' });
    await row.waitFor({ timeout: T });
    for (const text of ['Luna Hart', '0:02', 'Published']) await row.getByText(text, { exact: true }).waitFor({ timeout: T });
    expect(await row.getByLabel('Access level of Library Clip').inputValue()).toBe('premium');
    await screenshot(page, '30-admin-video-library');

    await row.getByRole('button', { name: 'Unpublish Library Clip' }).click();
    await see(page, 'Video "Library Clip" unpublished');
    await row.getByText('Unpublished', { exact: true }).waitFor({ timeout: T });
    expect(await publicTitles()).not.toContain('Library Clip');
    expect((await apiClient(base).get(`/videos/${id}`)).status).toBe(404);

    await row.getByRole('button', { name: 'Publish Library Clip' }).click();
    await see(page, 'Video "Library Clip" published');
    await row.getByText('Published', { exact: true }).waitFor({ timeout: T });
    expect(await publicTitles()).toContain('Library Clip');

    await row.getByLabel('Access level of Library Clip').selectOption('vip');
    await see(page, 'Access level of "Library Clip" changed to VIP');
    expect((await apiClient(base).get(`/videos/${id}`)).body.data.accessLevel).toBe('vip');
    expect(await row.getByLabel('Access level of Library Clip').inputValue()).toBe('vip');

    // Escape cancels the confirmation; the second time it is confirmed.
    await row.getByRole('button', { name: 'Delete Library Clip' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Are you sure you want to delete this video? This action cannot be undone.').waitFor({ timeout: T });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: T });
    expect((await apiClient(base).get(`/videos/${id}`)).status).toBe(200);
    await row.getByRole('button', { name: 'Delete Library Clip' }).click();
    await screenshot(page, '31-admin-video-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await see(page, 'Video "Library Clip" deleted');
    await row.waitFor({ state: 'detached', timeout: T });
    expect((await apiClient(base).get(`/videos/${id}`)).status).toBe(404);
    expect((await apiClient(base).get('/admin/videos', token)).body.data.videos.map((v: { id: string }) => v.id)).not.toContain(id);
    await ctx.close();
  });

  it('an upload through the form appears in the library without a reload', async () => {
    const { ctx, page } = await adminPage();
    await page.getByRole('heading', { name: 'Video Library' }).waitFor({ timeout: T });
    await page.getByLabel('Title *').fill('Fresh From The Form');
    await page.getByLabel('Video File *').setInputFiles(await makeMp4(media, 2));
    await page.getByRole('button', { name: 'Upload Video' }).click();
    await see(page, /Video "Fresh From The Form" uploaded successfully!/, 60_000);
    await page.getByRole('row').filter({ hasText: 'Fresh From The Form' }).waitFor({ timeout: T });
    await ctx.close();
  });

  it('rejects a submitted payment with a reason', async () => {
    const member = await seedMember(server, { email: 'payer.rejected@example.test' });
    const submitted = await apiClient(base).post(
      '/payments/submit-bitcoin-payment',
      { userId: member.id, planType: 'annual', btcAmount: '0.005', transactionHash: 'b'.repeat(64) },
      member.token,
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBeLessThan(300);

    const { ctx, page } = await adminPage();
    const reject = page.getByRole('button', { name: `Reject payment of ${member.email}` });
    await reject.click({ timeout: T });
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Reject payment' }).waitFor({ timeout: T });
    const reason = dialog.getByLabel('Reason *');
    expect(await reason.evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByRole('button', { name: 'Reject Payment' }).click();
    await dialog.getByText('Please give a reason for rejecting the payment').waitFor({ timeout: T });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: T });

    await reject.click();
    expect(await reason.inputValue()).toBe(''); // a fresh form each time
    await reason.fill('No transaction with this hash reached our address');
    await screenshot(page, '32-admin-reject-payment');
    await dialog.getByRole('button', { name: 'Reject Payment' }).click();
    await see(page, 'Payment rejected');
    await reject.waitFor({ state: 'detached', timeout: T });
    await see(page, 'No pending payment verifications');

    const pending = await apiClient(base).get('/admin/pending-payments', await adminToken());
    expect(pending.body.data.payments.map((p: { userEmail: string }) => p.userEmail)).not.toContain(member.email);
    await ctx.close();
  });

  it('makes a runner token shown once with its command, which opens the runner API, and revokes it after a confirmation', async () => {
    const heartbeat = (token: string) =>
      fetch(`${base}/api/runners/heartbeat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ runnerId: 'e2e:1:abcd', concurrency: 1, startedAt: new Date().toISOString(), jobs: [] }),
      });
    const { ctx, page } = await adminPage();
    await page.getByRole('heading', { name: 'Transcode runners' }).waitFor({ timeout: T });
    await page.getByLabel('New runner token').fill('e2e-box');
    await page.getByRole('button', { name: 'Make token' }).click();
    await see(page, 'Runner token “e2e-box” made. It is shown only now');
    const command = (await page.getByTestId('runner-token').textContent()) ?? '';
    expect(command).toMatch(new RegExp(`^RUNNER_TOKEN=rnr_[A-Za-z0-9_-]{43} pnpm cli transcode-runner --server ${base}$`));
    const token = (/RUNNER_TOKEN=(\S+)/.exec(command)?.[1] ?? '') as string;
    expect((await heartbeat(token)).status).toBe(200);
    const tokens = page.getByRole('table', { name: 'Runner tokens' });
    await tokens.getByRole('row').filter({ hasText: 'e2e-box' }).getByText('Active', { exact: true }).waitFor({ timeout: T });

    // Gone once dismissed: the list never shows it again.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('runner-token').waitFor({ state: 'detached', timeout: T });
    expect(await page.content()).not.toContain(token);

    // A taken name: the server's message.
    await page.getByLabel('New runner token').fill('e2e-box');
    await page.getByRole('button', { name: 'Make token' }).click();
    await see(page, 'A runner token named "e2e-box" exists already (revoke it first)');

    await page.getByRole('button', { name: 'Revoke runner token e2e-box' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Revoke runner token “e2e-box”?' }).waitFor({ timeout: T });
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await see(page, 'Runner token “e2e-box” revoked: its runners stop at their next call.');
    await tokens
      .getByRole('row')
      .filter({ hasText: 'e2e-box' })
      .getByText(/^Revoked /)
      .waitFor({ timeout: T });
    expect((await heartbeat(token)).status).toBe(401);
    await ctx.close();
  });
});
