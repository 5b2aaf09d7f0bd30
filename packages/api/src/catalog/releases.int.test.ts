/**
 * Issue 40, server side, end to end on the production configuration (NODE_ENV=production), per store:
 * behind-the-scenes videos (annual only), scheduled releases published by the leader's release job on
 * time (`RELEASES_TICK_MS` shortened; the test waits for the release, it never sleeps a fixed time),
 * early access by plan (`releases.delayDaysByPlan.monthly: 3`), and the admin's preview of every video.
 * The attacker's requests: a monthly member forging the annual member's signed URLs, a member asking a
 * scheduled video before its time. Then the same through two API processes on one PostgreSQL: the
 * admin writes through A, members read through B, and when A dies B's release job takes over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatReleaseDate } from '@members/ui/access';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer } from '../../test/childServer.js';
import { apiClient, forEachStore, freshStore, startTestServer, storeKinds, type TestServer, testEnv, tmpDir } from '../../test/harness.js';
import { EXAMPLE_SITE_CONFIG, randomMainnetAddress } from '../../test/siteConfig.js';
import type { SiteConfig } from '../config/site.js';
import { makeMp4 } from '../media/media.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { transcodeForTest } from '../transcode/transcode.testkit.js';
import { ingestVideoFile } from './ingest.js';
import { videoStreamId } from './video.decider.js';

const fixtures = tmpDir('releases-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const DAY = 86_400_000;
const RELEASES: SiteConfig['releases'] = { delayDaysByPlan: { monthly: 3, annual: 0 }, freeDelayDays: 0 };
const PRODUCTION = { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', RELEASES_TICK_MS: '200' };
const ANNUAL_ONLY = 'This video is exclusive to the annual plan. Upgrade to the Annual Premium plan to watch it.';

/** A clock that follows real time: the release job and the child process compare with the real now. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

/** Polls `check` until it holds; bounded only to report a hang (the release is due within a tick). */
async function until(what: string, check: () => Promise<boolean>, hangMs = 30_000): Promise<void> {
  const deadline = Date.now() + hangMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${hangMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Cast {
  admin: TestViewer;
  annual: TestViewer;
  monthly: TestViewer;
  member: TestViewer;
}

async function castOf(server: TestServer): Promise<Cast> {
  const admin = await createTestUser(server.ctx, { role: 'admin' });
  const annual = await createTestUser(server.ctx);
  await grantPlanForTest(server.ctx, annual.id, 'annual');
  const monthly = await createTestUser(server.ctx);
  await grantPlanForTest(server.ctx, monthly.id, 'monthly');
  return { admin, annual, monthly, member: await createTestUser(server.ctx) };
}

async function ingest(server: TestServer, admin: TestViewer, title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const copy = path.join(fixtures, `${title.replace(/\W/g, '_')}-${Math.random().toString(36).slice(2)}.mp4`);
  fs.copyFileSync(await makeMp4(fixtures, 2), copy);
  const r = await ingestVideoFile(server.ctx, { filePath: copy, title, accessLevel: 'premium', actorId: admin.id, ...extra });
  if (!r.ok) throw new Error(r.error.message);
  return r.videoId;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** How many `VideoPublished` the video's stream holds after its last schedule. */
async function publishedAfterSchedule(server: TestServer, videoId: string) {
  const events = await server.ctx.store.readStream(videoStreamId(videoId));
  const last = events.map((e) => e.type).lastIndexOf('VideoReleaseScheduled');
  return events.slice(last + 1).filter((e) => e.type === 'VideoPublished');
}

forEachStore('scheduled releases, behind-the-scenes and the admin preview', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let who: Cast;
  const ids: Record<'bts' | 'twoDays' | 'fourDays' | 'hidden', string> = { bts: '', twoDays: '', fourDays: '', hidden: '' };
  const stream = (id: string, token?: string) => api.get(`/videos/${id}/stream`, token);

  beforeAll(async () => {
    server = await startTestServer(kind, { env: PRODUCTION, site: { releases: RELEASES }, clock: new WallClock() });
    api = apiClient(server.url);
    who = await castOf(server);
    ids.bts = await ingest(server, who.admin, 'Behind the scenes', { exclusiveTo: 'annual' });
    expect(await transcodeForTest(server, ids.bts)).toBe('completed');
    ids.twoDays = await ingest(server, who.admin, 'Two days ago');
    ids.fourDays = await ingest(server, who.admin, 'Four days ago');
    ids.hidden = await ingest(server, who.admin, 'Unpublished premium');
    const now = Date.now();
    // A past publishAt is allowed: the video counts as released then, each plan after its delay.
    for (const [id, publishAt] of [
      [ids.twoDays, iso(now - 2 * DAY)],
      [ids.fourDays, iso(now - 4 * DAY)],
    ] as const)
      expect((await api.put(`/admin/videos/${id}`, { publishAt }, who.admin.token)).status).toBe(200);
    expect((await api.put(`/admin/videos/${ids.hidden}`, { published: false }, who.admin.token)).status).toBe(200);
  }, 120_000);
  afterAll(() => server?.close());

  it('GET /api/site answers the releases delays, so pages can say when each plan gets a video', async () => {
    expect((await api.get('/site')).body.data.releases).toEqual(RELEASES);
  });

  it('an annual-exclusive video streams to an annual member and answers 403 access.annual_plan_required to the others', async () => {
    expect((await stream(ids.bts, who.annual.token)).status).toBe(200);
    for (const viewer of [who.monthly, who.member])
      expect(await stream(ids.bts, viewer.token)).toMatchObject({
        status: 403,
        body: { success: false, error: ANNUAL_ONLY, code: 'access.annual_plan_required' },
      });
    const listed = await api.get('/videos?exclusiveTo=annual', who.monthly.token);
    expect(listed.body.data.videos.map((v: { id: string; exclusiveTo: string }) => [v.id, v.exclusiveTo])).toEqual([[ids.bts, 'annual']]);
    expect((await api.get('/videos?exclusiveTo=monthly')).status).toBe(400);
  });

  it("attacker: a monthly member replaying the annual member's signed stream, HLS and media URLs with their own id gets 403", async () => {
    const granted = (await stream(ids.bts, who.annual.token)).body.data as { streamUrl: string; hlsUrl: string; previewsUrl: string };
    expect(granted.hlsUrl).toEqual(expect.any(String));
    expect(granted.streamUrl).toEqual(expect.any(String));
    for (const signed of [granted.hlsUrl, granted.streamUrl, granted.previewsUrl]) {
      const url = new URL(signed, server.url);
      url.searchParams.set('u', who.monthly.id);
      const res = await fetch(url, { headers: { authorization: `Bearer ${who.monthly.token}` } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('stream.link_invalid');
    }
  });

  it('releases.delayDaysByPlan.monthly 3: published two days ago streams to annual members only, four days ago to both', async () => {
    const two = await api.get(`/videos/${ids.twoDays}`, who.monthly.token);
    const availableAt = iso(Date.parse(two.body.data.publishAt) + 3 * DAY);
    expect(two.body.data).toMatchObject({ exclusiveTo: null, availableAt });
    expect((await api.get(`/videos/${ids.twoDays}`, who.annual.token)).body.data.availableAt).toBeNull();
    expect((await stream(ids.twoDays, who.annual.token)).status).toBe(200);
    expect(await stream(ids.twoDays, who.monthly.token)).toMatchObject({
      status: 403,
      body: { success: false, error: `Coming to your plan on ${formatReleaseDate(availableAt)}`, code: 'access.not_yet_available' },
    });
    for (const viewer of [who.annual, who.monthly]) expect((await stream(ids.fourDays, viewer.token)).status).toBe(200);
    expect((await api.get(`/videos/${ids.fourDays}`, who.monthly.token)).body.data.availableAt).toBeNull();
  });

  it('an admin without a subscription streams an unpublished premium video (the original, full ladder) and finds it', async () => {
    expect((await api.get(`/videos/${ids.hidden}`, who.member.token)).status).toBe(404);
    expect((await api.get(`/videos/${ids.hidden}`, who.admin.token)).status).toBe(200);
    const r = await stream(ids.hidden, who.admin.token);
    expect(r.status).toBe(200);
    expect(r.body.data.streamUrl).toEqual(expect.any(String));
    // The full ladder of the transcoded exclusive one, as the annual plan's cap would give too.
    expect((await stream(ids.bts, who.admin.token)).body.data.qualities).toEqual(
      (await stream(ids.bts, who.annual.token)).body.data.qualities,
    );
  });

  it('a video scheduled a few seconds ahead is not found for members (404) but previewed by the admin, then released on time, once', async () => {
    const id = await ingest(server, who.admin, 'Coming soon');
    const publishAt = iso(Date.now() + 3000);
    const put = await api.put(`/admin/videos/${id}`, { publishAt }, who.admin.token);
    expect(put.body.data).toMatchObject({ published: false, publishAt });
    const adminList = await api.get('/admin/videos?pageSize=100', who.admin.token);
    expect(adminList.body.data.videos.find((v: { id: string }) => v.id === id)).toMatchObject({ published: false, publishAt });
    for (const token of [undefined, who.member.token, who.annual.token]) {
      expect(await api.get(`/videos/${id}`, token)).toMatchObject({ status: 404, body: { code: 'video.not_found' } });
      expect((await api.get(`/videos/${id}/thumbnail`, token)).status).toBe(404);
    }
    // Attacker: a subscriber asking its stream before its time learns nothing but "not found".
    expect(await stream(id, who.annual.token)).toMatchObject({ status: 404, body: { code: 'video.not_found' } });
    expect((await stream(id, who.admin.token)).status).toBe(200);

    const listed = async () =>
      (await api.get('/videos?pageSize=100', who.annual.token)).body.data.videos.some((v: { id: string }) => v.id === id);
    expect(await listed()).toBe(false);
    await until('the scheduled video is listed', listed);
    const seenAt = Date.now();
    expect(seenAt).toBeGreaterThanOrEqual(Date.parse(publishAt));
    expect(seenAt - Date.parse(publishAt)).toBeLessThan(60_000);
    expect((await stream(id, who.annual.token)).status).toBe(200);
    const published = await publishedAfterSchedule(server, id);
    expect(published.map((e) => e.data)).toEqual([{ videoId: id, publishedBy: 'release-scheduler', publishedAt: publishAt }]);
  });

  it('bad values answer 400 in the envelope, naming the field; published true with a future publishAt is refused', async () => {
    for (const body of [{ publishAt: 'tomorrow' }, { publishAt: '2026-12-03T09:00:00' }, { exclusiveTo: 'monthly' }]) {
      const r = await api.put(`/admin/videos/${ids.fourDays}`, body, who.admin.token);
      expect(r).toMatchObject({ status: 400, body: { success: false, code: 'validation.invalid_body' } });
      expect(r.body.error).toMatch(/^(publishAt|exclusiveTo): /);
    }
    const both = await api.put(`/admin/videos/${ids.fourDays}`, { published: true, publishAt: iso(Date.now() + DAY) }, who.admin.token);
    expect(both).toMatchObject({ status: 400, body: { success: false, code: 'validation.invalid_input' } });
  });

  it('a schedule survives a restart: the release job reads what is due from the read model when it starts again', async () => {
    const id = await ingest(server, who.admin, 'After the restart');
    const publishAt = iso(Date.now() + 1500);
    expect((await api.put(`/admin/videos/${id}`, { publishAt }, who.admin.token)).status).toBe(200);
    server = await server.restart();
    api = apiClient(server.url);
    await until('released after the restart', async () => (await api.get(`/videos/${id}`, who.monthly.token)).status === 200);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(publishAt));
    expect(await publishedAfterSchedule(server, id)).toHaveLength(1);
  });
});

const describePg = storeKinds.includes('postgres') ? describe : describe.skip;

describePg('scheduled releases through two API processes on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let a: TestServer;
  let b: ChildServer;
  let onB: ReturnType<typeof apiClient>;
  let onA: ReturnType<typeof apiClient>;
  let who: Cast;
  let siteDir: string;

  beforeAll(async () => {
    const store = await freshStore('postgres');
    const env = { RELEASES_TICK_MS: '200' };
    // A starts first and leads; B follows (its release job starts only if A's leadership ends).
    a = await startTestServer('postgres', { store, env, site: { releases: RELEASES }, clock: new WallClock() });
    onA = apiClient(a.url);
    siteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'releases-site-'));
    const site = JSON.parse(fs.readFileSync(EXAMPLE_SITE_CONFIG, 'utf8'));
    site.bitcoin.address = randomMainnetAddress();
    site.releases = RELEASES;
    fs.writeFileSync(path.join(siteDir, 'site.config.json'), JSON.stringify(site));
    b = await launchServer({
      ...store.env,
      ...env,
      SITE_CONFIG: path.join(siteDir, 'site.config.json'),
      TOKEN_SECRET: testEnv().TOKEN_SECRET as string,
    });
    onB = apiClient(b.url);
    who = await castOf(a);
  }, 120_000);
  afterAll(async () => {
    if (b) await killHard(b);
    await a?.close();
    if (siteDir) fs.rmSync(siteDir, { recursive: true, force: true });
  });

  it('B serves what A records: annual-only to annual members, early access by plan, 403 with the codes', async () => {
    const bts = await ingest(a, who.admin, 'Behind the scenes on B', { exclusiveTo: 'annual' });
    expect((await onB.get(`/videos/${bts}/stream`, who.annual.token)).status).toBe(200);
    expect(await onB.get(`/videos/${bts}/stream`, who.monthly.token)).toMatchObject({
      status: 403,
      body: { code: 'access.annual_plan_required', error: ANNUAL_ONLY },
    });
    const two = await ingest(a, who.admin, 'Two days ago on B');
    const four = await ingest(a, who.admin, 'Four days ago on B');
    expect((await onA.put(`/admin/videos/${two}`, { publishAt: iso(Date.now() - 2 * DAY) }, who.admin.token)).status).toBe(200);
    expect((await onA.put(`/admin/videos/${four}`, { publishAt: iso(Date.now() - 4 * DAY) }, who.admin.token)).status).toBe(200);
    expect((await onB.get(`/videos/${two}/stream`, who.annual.token)).status).toBe(200);
    expect(await onB.get(`/videos/${two}/stream`, who.monthly.token)).toMatchObject({
      status: 403,
      body: { code: 'access.not_yet_available' },
    });
    for (const viewer of [who.annual, who.monthly]) expect((await onB.get(`/videos/${four}/stream`, viewer.token)).status).toBe(200);
  });

  it('a video scheduled through A is not found on B before its time and appears on B on time, published once', async () => {
    const id = await ingest(a, who.admin, 'Scheduled across processes');
    const publishAt = iso(Date.now() + 3000);
    expect((await onA.put(`/admin/videos/${id}`, { publishAt }, who.admin.token)).status).toBe(200);
    expect(await onB.get(`/videos/${id}`, who.annual.token)).toMatchObject({ status: 404, body: { code: 'video.not_found' } });
    expect((await onB.get(`/videos/${id}/stream`, who.admin.token)).status).toBe(200);
    await until('listed on B', async () =>
      (await onB.get('/videos?pageSize=100', who.annual.token)).body.data.videos.some((v: { id: string }) => v.id === id),
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(publishAt));
    expect(await publishedAfterSchedule(a, id)).toHaveLength(1);
  });

  it('when the leader (A) stops, B takes the release job over: a schedule set through A is published by B', async () => {
    const id = await ingest(a, who.admin, 'Released by B');
    const publishAt = iso(Date.now() + 2000);
    expect((await onA.put(`/admin/videos/${id}`, { publishAt }, who.admin.token)).status).toBe(200);
    await a.stop();
    await until('released by B', async () => (await onB.get(`/videos/${id}`, who.monthly.token)).status === 200);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(publishAt));
  });
});
