/**
 * Two sites sharing one bucket under different prefixes (issue 27, finding 11), on the tests' Ceph
 * RGW and the production configuration: each site's tus uploads live under its own `PREFIX/tus/`
 * (nothing at the bucket root), a site's admin cannot reach the other site's upload by its id, and
 * a site's expiry sweep aborts only its own multipart uploads — the other site then finishes its
 * upload as if nothing happened. Before, tus objects sat at the bucket root: site B answered HEAD of
 * site A's upload with its offset, and B's sweep listed (and aborted) every multipart upload in the bucket.
 */
import fs from 'node:fs';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds, testS3Client } from '../../test/s3.js';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit.js';
import { createTusS3Store } from '../uploads/tusS3Store.js';
import { tusUploadsOf } from '../uploads/tusUploads.js';
import { makeMp4 } from './media.testkit.js';

const fixtures = tmpDir('tus-prefix-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example.test', REQUIRE_ADMIN_2FA: 'false' };

describe.runIf(mediaKinds().includes('s3'))('two sites, one bucket, two prefixes: tus uploads stay apart [s3]', () => {
  let bucket: FreshBucket;
  let a: TestServer;
  let b: TestServer;
  let adminA: TestViewer;
  let adminB: TestViewer;
  let clip: Buffer;
  beforeAll(async () => {
    bucket = await freshBucket('sitea');
    a = await startTestServer('sqlite', { bucket, env: PRODUCTION });
    b = await startTestServer('sqlite', { bucket, env: { ...PRODUCTION, MEDIA_STORE: `s3://${bucket.bucket}/siteb` } });
    adminA = await createTestUser(a.ctx, { role: 'admin' });
    adminB = await createTestUser(b.ctx, { role: 'admin' });
    clip = fs.readFileSync(await makeMp4(fixtures, 2));
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await bucket?.cleanup();
  });

  const headers = (token: string, more: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    'tus-resumable': '1.0.0',
    ...more,
  });
  async function begin(server: TestServer, token: string, title: string): Promise<{ url: string; id: string }> {
    const meta = [`filename ${Buffer.from(`${title}.mp4`).toString('base64')}`, `title ${Buffer.from(title).toString('base64')}`];
    const created = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: headers(token, { 'upload-length': String(clip.length), 'upload-metadata': meta.join(',') }),
    });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location') as string, server.url).toString();
    const first = await fetch(url, {
      method: 'PATCH',
      headers: headers(token, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }),
      body: new Uint8Array(clip.subarray(0, half())),
    });
    expect(first.status).toBe(204);
    return { url, id: url.slice(url.lastIndexOf('/') + 1) };
  }
  const half = () => Math.floor(clip.length / 2);
  const multipartKeys = async () =>
    ((await testS3Client().send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket }))).Uploads ?? []).map((u) => u.Key).sort();

  it("keeps each site's uploads under its prefix, out of the other's reach and out of the other's sweep", async () => {
    const ofA = await begin(a, adminA.token, 'Site A upload');
    const ofB = await begin(b, adminB.token, 'Site B upload');

    // Under each site's prefix, nothing at the bucket root.
    const keys = await bucketKeys(bucket.bucket);
    expect(keys.filter((k) => k.includes(ofA.id))).toEqual([`sitea/tus/${ofA.id}.info`, `sitea/tus/${ofA.id}.part`]);
    expect(keys.filter((k) => k.includes(ofB.id))).toEqual([`siteb/tus/${ofB.id}.info`, `siteb/tus/${ofB.id}.part`]);
    expect(keys.filter((k) => !k.includes('/'))).toEqual([]);
    expect(await multipartKeys()).toEqual([`sitea/tus/${ofA.id}`, `siteb/tus/${ofB.id}`].sort());

    // Site B's admin, given site A's upload id, finds nothing there.
    const across = await fetch(`${b.url}/api/admin/uploads/${ofA.id}`, { method: 'HEAD', headers: headers(adminB.token) });
    expect([across.status, across.headers.get('upload-offset')]).toEqual([404, null]);
    const appended = await fetch(`${b.url}/api/admin/uploads/${ofA.id}`, {
      method: 'PATCH',
      headers: headers(adminB.token, { 'upload-offset': String(half()), 'content-type': 'application/offset+octet-stream' }),
      body: new Uint8Array(clip.subarray(half())),
    });
    expect(appended.status).toBe(404);

    // Site A's admin crafts URLs that would name site B's upload by its store key (`siteb/tus/{id}`)
    // or climb out of A's prefix: no answer carries B's offset, nothing reaches B's upload — over
    // HTTP (the route refuses the id) and handed straight to tus (its id from the URL is checked too).
    const crafted = [
      `..%2Fsiteb%2Ftus%2F${ofB.id}`,
      `..%2F..%2Fsiteb%2Ftus%2F${ofB.id}`,
      `siteb%2Ftus%2F${ofB.id}`,
      `..%5Csiteb%5Ctus%5C${ofB.id}`,
      `${ofB.id}%00`,
      `%2E%2E%2Fsiteb%2Ftus%2F${ofB.id}`,
    ];
    for (const id of crafted) {
      const url = `${a.url}/api/admin/uploads/${id}`;
      const viaRoute = await fetch(url, { method: 'HEAD', headers: headers(adminA.token) });
      expect([id, viaRoute.status >= 400 && viaRoute.status < 500, viaRoute.headers.get('upload-offset')]).toEqual([id, true, null]);
      const actor = { adminId: adminA.id, requestId: null };
      const viaTus = await (await tusUploadsOf(a.ctx)).handle(new Request(url, { method: 'HEAD', headers: headers(adminA.token) }), actor);
      expect([id, viaTus.status, viaTus.headers.get('upload-offset')]).toEqual([id, 404, null]);
      const patched = await (await tusUploadsOf(a.ctx)).handle(
        new Request(url, {
          method: 'PATCH',
          headers: headers(adminA.token, { 'upload-offset': String(half()), 'content-type': 'application/offset+octet-stream' }),
          body: new Uint8Array(clip.subarray(half())),
        }),
        actor,
      );
      expect([id, patched.status]).toEqual([id, 404]);
    }
    const ownHead = await fetch(ofB.url, { method: 'HEAD', headers: headers(adminB.token) });
    expect([ownHead.status, ownHead.headers.get('upload-offset')]).toEqual([200, String(half())]);

    // Site B's sweep, with every upload already expired for it, aborts only its own.
    const sweeperB = createTusS3Store(b.ctx.env, 1);
    await new Promise((r) => setTimeout(r, 20));
    await sweeperB.deleteExpired();
    expect(await multipartKeys()).toEqual([`sitea/tus/${ofA.id}`]);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.startsWith('sitea/tus/'))).toEqual([
      `sitea/tus/${ofA.id}.info`,
      `sitea/tus/${ofA.id}.part`,
    ]);

    // Site A finishes its upload untouched.
    const rest = await fetch(ofA.url, {
      method: 'PATCH',
      headers: headers(adminA.token, { 'upload-offset': String(half()), 'content-type': 'application/offset+octet-stream' }),
      body: new Uint8Array(clip.subarray(half())),
    });
    expect(rest.status).toBe(204);
    const videoId = rest.headers.get('upload-video-id');
    expect(await a.ctx.db.get('SELECT title FROM videos WHERE id = ?', [videoId])).toEqual({ title: 'Site A upload' });
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.startsWith('sitea/tus/'))).toEqual([]);
    expect(await bucketKeys(bucket.bucket, `sitea/videos/${videoId}/`)).toContain(`sitea/videos/${videoId}/video.mp4`);
  }, 60_000);
});
