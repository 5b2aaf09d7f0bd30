import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { filesUnder, makeFakeVideo, makeMp4 } from '../media/media.testkit';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit';
import { viewsStreamId } from '../streaming/viewing.decider';
import { ingestVideoFile } from './ingest';

const fixtures = tmpDir('catalog-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('catalog', (kind) => {
  let server: TestServer;
  let admin: TestViewer;
  let api: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};

  /** ingestVideoFile moves its input, so each call gets a copy. */
  async function ingest(title: string, extra: Record<string, unknown> = {}): Promise<string> {
    const copy = path.join(fixtures, `${kind}-${title.replace(/\W/g, '_')}.mp4`);
    fs.copyFileSync(await makeMp4(fixtures, 3), copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title, actorId: admin.id, ...extra });
    if (!r.ok) throw new Error(r.error.message);
    server.clock.advance(60_000);
    return r.videoId;
  }

  beforeAll(async () => {
    server = await startTestServer(kind);
    api = apiClient(server.url);
    admin = await createTestUser(server.ctx, { role: 'admin' });
    ids.a = await ingest('Golden Hour', { model: 'Scarlett Vane', tags: 'sunset, beach', categories: ['Solo'], accessLevel: 'free' });
    ids.b = await ingest('Midnight Session', { model: 'Luna Hart', tags: ['night'], categories: 'Duo', description: 'A 50% darker set' });
    ids.c = await ingest('Silk and Shadows', { model: 'luna hart', tags: 'Night, silk', categories: 'Solo', accessLevel: 'vip' });
    // Two counted views for b, one for c (ViewRecorded feeds view_count).
    const at = server.clock.now().toISOString();
    for (const [video, user] of [
      [ids.b, 'u1'],
      [ids.b, 'u2'],
      [ids.c, 'u1'],
    ] as [string, string][])
      await server.ctx.store.append(
        viewsStreamId(video, user),
        [{ type: 'ViewRecorded', data: { videoId: video, userId: user, watchedSeconds: 30, viewedAt: at } }],
        { expectedVersion: 'no_stream', metadata: { at } },
      );
  });
  afterAll(() => server?.close());

  const titles = async (qs: string) => {
    const r = await api.get(`/videos${qs}`);
    expect(r.status).toBe(200);
    return { titles: r.body.data.videos.map((v: { title: string }) => v.title), total: r.body.data.total };
  };

  it('lists newest first with the total, for visitors', async () => {
    expect(await titles('')).toEqual({ titles: ['Silk and Shadows', 'Midnight Session', 'Golden Hour'], total: 3 });
  });

  it('filters: q (title, description, tags), model, category, tag, accessLevel', async () => {
    expect((await titles('?q=golden')).titles).toEqual(['Golden Hour']);
    expect((await titles('?q=50%25')).titles).toEqual(['Midnight Session']);
    expect((await titles('?q=SILK')).titles).toEqual(['Silk and Shadows']);
    expect((await titles('?q=beach')).titles).toEqual(['Golden Hour']);
    expect((await titles('?model=Luna%20Hart')).titles).toEqual(['Silk and Shadows', 'Midnight Session']);
    expect((await titles('?category=solo')).titles).toEqual(['Silk and Shadows', 'Golden Hour']);
    expect((await titles('?tag=night')).titles).toEqual(['Silk and Shadows', 'Midnight Session']);
    expect((await titles('?accessLevel=vip')).titles).toEqual(['Silk and Shadows']);
    expect((await titles('?accessLevel=premium&tag=night')).titles).toEqual(['Midnight Session']);
    expect(await titles('?q=nothing-like-this')).toEqual({ titles: [], total: 0 });
  });

  it('sorts by popularity (view count) and pages with a bounded page size', async () => {
    expect((await titles('?sort=popular')).titles).toEqual(['Midnight Session', 'Silk and Shadows', 'Golden Hour']);
    expect(await titles('?pageSize=2&page=2')).toEqual({ titles: ['Golden Hour'], total: 3 });
    const tooBig = await api.get('/videos?pageSize=101');
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error).toMatch(/^pageSize/);
    expect((await api.get('/videos?sort=random')).status).toBe(400);
    expect((await api.get('/videos?accessLevel=gold')).status).toBe(400);
  });

  it('unknown ids are "Video not found"', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'no..pe', '%2e%2e%2fetc'])
      expect(await api.get(`/videos/${id}`)).toMatchObject({ status: 404, body: { success: false, error: 'Video not found' } });
  });

  it('admin edits, unpublishes (404 for visitors), republishes and deletes', async () => {
    const put = await api.put(
      `/admin/videos/${ids.a}`,
      { title: 'Golden Hour (4K)', accessLevel: 'premium', tags: ['gold'], published: false },
      admin.token,
    );
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ title: 'Golden Hour (4K)', accessLevel: 'premium', tags: ['gold'], published: false });
    expect((await api.get(`/videos/${ids.a}`)).status).toBe(404);
    expect((await api.get(`/videos/${ids.a}/thumbnail`)).status).toBe(404);
    expect((await titles('')).total).toBe(2);
    expect((await api.get('/admin/videos', admin.token)).body.data.total).toBe(3);
    expect((await api.put(`/admin/videos/${ids.a}`, { published: true }, admin.token)).status).toBe(200);
    expect((await api.get(`/videos/${ids.a}`)).body.data).toMatchObject({ title: 'Golden Hour (4K)', tags: ['gold'] });
    expect((await titles('?tag=gold')).titles).toEqual(['Golden Hour (4K)']);
    expect((await titles('?tag=sunset')).titles).toEqual([]);

    expect((await api.put(`/admin/videos/${ids.a}`, { title: '' }, admin.token)).status).toBe(400);
    expect((await api.put(`/admin/videos/${ids.a}`, { accessLevel: 'gold' }, admin.token)).status).toBe(400);
    expect((await api.put(`/admin/videos/${ids.a}`, { bogus: 1 }, admin.token)).status).toBe(400);

    const del = await api.del(`/admin/videos/${ids.a}`, admin.token);
    expect(del.status).toBe(200);
    expect((await api.get(`/videos/${ids.a}`)).status).toBe(404);
    expect(filesUnder(path.join(server.store.dataDir, 'media/videos', ids.a as string))).toEqual([]);
    expect((await api.del(`/admin/videos/${ids.a}`, admin.token)).status).toBe(404);
    expect((await api.put(`/admin/videos/${ids.a}`, { title: 'x' }, admin.token)).status).toBe(404);
  });

  it('members cannot use the admin routes', async () => {
    const member = await createTestUser(server.ctx);
    expect((await api.put(`/admin/videos/${ids.b}`, { title: 'x' }, member.token)).status).toBe(403);
    expect((await api.del(`/admin/videos/${ids.b}`, member.token)).status).toBe(403);
    expect((await api.get('/admin/videos')).status).toBe(401);
  });

  it('ingestVideoFile refuses a non-video and keeps storage clean', async () => {
    const before = filesUnder(path.join(server.store.dataDir, 'media'));
    const r = await ingestVideoFile(server.ctx, { filePath: makeFakeVideo(fixtures), title: 'Fake', actorId: admin.id });
    expect(r).toEqual({
      ok: false,
      error: {
        code: 'validation.invalid_input',
        status: 400,
        message: 'The uploaded file is not a playable video (no video stream found)',
      },
    });
    expect(
      await ingestVideoFile(server.ctx, { filePath: path.join(fixtures, 'missing.mp4'), title: 'x', actorId: admin.id }),
    ).toMatchObject({
      ok: false,
      error: { status: 400 },
    });
    expect(filesUnder(path.join(server.store.dataDir, 'media'))).toEqual(before);
  });
});
