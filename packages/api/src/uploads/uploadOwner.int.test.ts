/**
 * A tus upload belongs to the admin who created it (issue 27, finding 11), on the production
 * configuration over real HTTP, per store: admin B, holding admin A's upload URL, gets 404 — as for
 * an upload that does not exist — on HEAD, GET, PATCH and DELETE, and A's upload is untouched; A
 * continues and finishes it (tus-js-client). An upload with no recorded owner (created before the
 * owner was recorded) stays open to every admin.
 */
import fs from 'node:fs';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { makeMp4 } from '../media/media.testkit.js';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit.js';

const fixtures = tmpDir('upload-owner-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('tus uploads have an owner', (kind) => {
  let server: TestServer;
  let adminA: TestViewer;
  let adminB: TestViewer;
  let clip: Buffer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example.test', REQUIRE_ADMIN_2FA: 'false' },
    });
    adminA = await createTestUser(server.ctx, { role: 'admin' });
    adminB = await createTestUser(server.ctx, { role: 'admin' });
    clip = fs.readFileSync(await makeMp4(fixtures, 2));
  });
  afterAll(async () => server?.close());

  const headers = (token: string, more: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    'tus-resumable': '1.0.0',
    ...more,
  });
  async function create(token: string, title: string): Promise<string> {
    const meta = [`filename ${Buffer.from(`${title}.mp4`).toString('base64')}`, `title ${Buffer.from(title).toString('base64')}`];
    const r = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: headers(token, { 'upload-length': String(clip.length), 'upload-metadata': meta.join(',') }),
    });
    expect(r.status).toBe(201);
    return new URL(r.headers.get('location') as string, server.url).toString();
  }
  const patch = (url: string, token: string, from: number, to: number) =>
    fetch(url, {
      method: 'PATCH',
      headers: headers(token, { 'upload-offset': String(from), 'content-type': 'application/offset+octet-stream' }),
      body: new Uint8Array(clip.subarray(from, to)),
    });

  it("admin B cannot HEAD, GET, PATCH or DELETE admin A's upload: 404 as if it did not exist; A finishes it", async () => {
    const url = await create(adminA.token, 'Owned by A');
    const half = Math.floor(clip.length / 2);
    expect((await patch(url, adminA.token, 0, half)).status).toBe(204);
    const unknown = `${server.url}/api/admin/uploads/${server.ctx.ids.next()}`;

    // B learns nothing: the same answers as for an id that never existed.
    for (const target of [url, unknown]) {
      const head = await fetch(target, { method: 'HEAD', headers: headers(adminB.token) });
      expect([head.status, head.headers.get('upload-offset')]).toEqual([404, null]);
      const get = await fetch(target, { headers: headers(adminB.token) });
      expect([get.status, await get.json()]).toEqual([404, { success: false, error: 'Upload not found', code: 'upload.not_found' }]);
    }
    const stolen = await patch(url, adminB.token, half, clip.length);
    expect([stolen.status, await stolen.json()]).toEqual([404, { success: false, error: 'Upload not found', code: 'upload.not_found' }]);
    const deleted = await fetch(url, { method: 'DELETE', headers: headers(adminB.token) });
    expect([deleted.status, await deleted.json()]).toEqual([404, { success: false, error: 'Upload not found', code: 'upload.not_found' }]);

    // A's upload is as A left it, and A finishes it with tus-js-client.
    const head = await fetch(url, { method: 'HEAD', headers: headers(adminA.token) });
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(half)]);
    const videoId = await new Promise<string>((resolve, reject) => {
      const upload = new tus.Upload(clip, {
        uploadUrl: url,
        headers: { authorization: `Bearer ${adminA.token}` },
        onError: reject,
        onAfterResponse: (_req, res) => {
          const id = res.getHeader('Upload-Video-Id');
          if (id) resolve(id);
        },
      });
      upload.start();
    });
    expect(await server.ctx.db.get('SELECT title FROM videos WHERE id = ?', [videoId])).toEqual({ title: 'Owned by A' });
    expect(await server.ctx.db.get('SELECT created_by FROM tus_uploads WHERE video_id = ?', [videoId])).toEqual({
      created_by: adminA.id,
    });
    // Finished, it stays A's: B's HEAD is still a 404, without the video id.
    const late = await fetch(url, { method: 'HEAD', headers: headers(adminB.token) });
    expect([late.status, late.headers.get('upload-video-id')]).toEqual([404, null]);
  });

  it('an upload without a recorded owner (from before the upgrade) stays open to every admin', async () => {
    const url = await create(adminA.token, 'From before');
    const id = url.slice(url.lastIndexOf('/') + 1);
    await server.ctx.db.run('UPDATE tus_uploads SET created_by = NULL WHERE id = ?', [id]);
    const head = await fetch(url, { method: 'HEAD', headers: headers(adminB.token) });
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, '0']);
    expect((await fetch(url, { method: 'DELETE', headers: headers(adminB.token) })).status).toBe(204);
  });
});
