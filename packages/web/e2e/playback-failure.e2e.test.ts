/**
 * What the member reads when the player cannot show a video, in Chromium against the real server,
 * and what the featured cards claim about a small upload (issue 28, findings 10 and 12):
 * - the media stored for a video is damaged (its HLS segments and original file overwritten with
 *   noise, as a browser without the codec sees a good file): the stream is granted, every engine
 *   fails to decode, and the overlay says 'Playback failed' with what to do and a "Try again" that
 *   asks for the stream afresh, never the refusal heading 'Access Restricted';
 * - a real refusal still reads 'Access Restricted': the admin makes a free video premium while a
 *   member without a subscription has its page open, and the server refuses the stream request;
 * - a 360p upload's featured card says NEW and 360p, never "4K".
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiClient, makeMp4, postUpload, type TestServer, tmpDir } from '../../api/test/support';
import { ageVerifiedContext, launchChromium, screenshot, signIn } from './browser';
import { playerServer } from './playerServer';

const MEMBER = { email: 'undecodable.viewer@example.test', password: 'member-password-1' };
const T = 30_000;

let server: TestServer;
let browser: Browser;
let ctx: BrowserContext;
let videoId: string;
let changedId: string;
const media = tmpDir('web-e2e-playback-failure-');

/** Overwrites every stored media container of a video (HLS segments, the original, any progressive copy) with noise of the same size. */
function damageStoredMedia(id: string): string[] {
  const dir = path.join(server.store.dataDir, 'media', 'videos', id);
  const damaged = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|m4s|mp4|mov|m4v|webm|mkv)$/.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
  for (const file of damaged) fs.writeFileSync(file, randomBytes(fs.statSync(file).size));
  return damaged;
}

async function openPlayer(page: Page, id: string): Promise<void> {
  await page.goto(`${server.url}/videos/${id}`);
  await page.getByRole('button', { name: /Watch Now/ }).click({ timeout: T });
}

describe('a 360p upload: true featured badges, and a player that names a playback failure as one', () => {
  beforeAll(async () => {
    ({ server, videoId } = await playerServer({
      media,
      member: { ...MEMBER, firstName: 'Una', lastName: 'Decodable', dateOfBirth: '1990-04-05' },
      clip: { width: 640, height: 360, seconds: 4, kbps: 600 },
      video: { title: 'Small Evening', duration: '0:04', accessLevel: 'free' },
    }));
    const up = await postUpload(
      server.url,
      await adminToken(server),
      { title: 'Changed Evening', duration: '0:02', accessLevel: 'free' },
      { video: await makeMp4(media, 2) },
    );
    if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${up.body.error}`);
    changedId = up.body.data.videoId;
    browser = await launchChromium();
    ctx = await ageVerifiedContext(browser, { viewport: { width: 1280, height: 900 } });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(media, { recursive: true, force: true });
  });

  it('a 360p upload\'s featured card says NEW and 360p, not "4K"', async () => {
    const page = await ctx.newPage();
    await page.goto(`${server.url}/`);
    const card = page.locator('article.video-card').filter({ has: page.getByRole('heading', { name: 'Small Evening' }) });
    await card.waitFor({ timeout: T });
    expect(await card.locator('.video-badges > *').allInnerTexts()).toEqual(['NEW', '360p']);
    const everyBadge = await page.locator('#featured .video-badges > *').allInnerTexts();
    expect(everyBadge).not.toContain('4K');
    await page.close();
  });

  it("a stream the server refuses still reads 'Access Restricted' (made premium while its page was open)", async () => {
    const page = await ctx.newPage();
    await signIn(page, server.url, MEMBER.email, MEMBER.password);
    await page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: T });
    await page.goto(`${server.url}/videos/${changedId}`);
    const watch = page.getByRole('button', { name: /Watch Now/ });
    await watch.waitFor({ timeout: T });
    const edit = await apiClient(server.url).put(`/admin/videos/${changedId}`, { accessLevel: 'premium' }, await adminToken(server));
    expect(edit.status).toBe(200);
    const refused = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/videos/${changedId}/stream`);
    await watch.click();
    expect((await refused).status()).toBe(403);
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.getByRole('heading', { name: 'Access Restricted' }).waitFor({ timeout: T });
    expect(await alert.textContent()).not.toContain('Playback failed');
    expect(await alert.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await page.close();
  });

  it("media the browser cannot decode: 'Playback failed' with what to do and a working \"Try again\", never 'Access Restricted'", async () => {
    expect(damageStoredMedia(videoId).length).toBeGreaterThan(1);
    const page = await ctx.newPage();
    const streamAsks: number[] = [];
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === `/api/videos/${videoId}/stream`) streamAsks.push(res.status());
    });
    await openPlayer(page, videoId);
    const dialog = page.getByRole('dialog');
    const heading = dialog.getByRole('alert').getByRole('heading', { name: 'Playback failed' });
    await heading.waitFor({ timeout: 60_000 });
    // Access was granted: the stream request succeeded, and the refusal heading is nowhere.
    expect(streamAsks).toEqual([200]);
    expect(await dialog.textContent()).not.toContain('Access Restricted');
    const text = (await dialog.getByRole('alert').textContent()) ?? '';
    expect(text).toMatch(/another browser such as Chrome or Firefox/);
    expect(text).toMatch(/check your connection/);
    // What happened is where the keyboard and the screen reader are.
    expect(await heading.evaluate((h) => h === document.activeElement)).toBe(true);
    await screenshot(page, 'playback-failed');
    // "Try again" asks for the stream afresh; the media is still damaged, so the same honest answer.
    await dialog.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => streamAsks.length, { timeout: T }).toBe(2);
    await heading.waitFor({ timeout: 60_000 });
    expect(await dialog.textContent()).not.toContain('Access Restricted');
    await dialog.getByRole('button', { name: 'Go Back' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: T });
    await page.close();
  });
});
