/**
 * The object store going away in the middle of an upload and coming back (a restart of the
 * gateway, as the server sees it: its connections are cut and refused, then accepted again; the
 * tests' Ceph RGW is shared by the suite, so the test cuts a relay in front of it). A resumable
 * (tus-js-client) upload cut after its first chunk retries, finishes once the store is back and
 * publishes its video once. A multipart upload cut while the server stores the original in the
 * bucket (a multipart upload to S3, mid-parts) is refused with 503: no video, no object, no scratch.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds, TEST_S3 } from '../../test/s3.js';
import { postUpload } from '../catalog/upload.testkit.js';
import { waitFor } from '../transcode/runners.testkit.js';
import { filesUnder, makeMp4, makeSizedClip } from './media.testkit.js';
import { type Relay, relay } from './relay.testkit.js';
import { MEDIA_STORE_UNAVAILABLE } from './storage.js';

const fixtures = tmpDir('store-restart-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

describe.runIf(mediaKinds().includes('s3'))('the object store restarting during uploads [s3]', () => {
  let bucket: FreshBucket;
  let link: Relay;
  let server: TestServer;

  beforeAll(async () => {
    bucket = await freshBucket();
    link = await relay(new URL(TEST_S3?.endpoint as string));
    server = await startTestServer('sqlite', { env: { ...bucket.env, AWS_ENDPOINT_URL_S3: link.url } });
  });
  afterAll(async () => {
    await server?.close();
    await link?.close();
    await bucket?.cleanup();
  });

  it('a tus upload cut after its first chunk resumes once the store is back and publishes its video once', async () => {
    const token = await adminToken(server);
    const clip = await makeMp4(fixtures, 4);
    const attempts: string[] = [];
    const videoId = await new Promise<string>((resolve, reject) => {
      let cut = false;
      const upload: tus.Upload = new tus.Upload(fs.createReadStream(clip), {
        endpoint: `${server.url}/api/admin/uploads`,
        headers: { Authorization: `Bearer ${token}` },
        metadata: { filename: 'restart.mp4', title: 'Through a restart', accessLevel: 'free' },
        chunkSize: Math.ceil(fs.statSync(clip).size / 3),
        storeFingerprintForResuming: false,
        retryDelays: [500, 1000, 1000, 2000, 2000, 4000, 4000],
        onShouldRetry: (err) => {
          attempts.push(String(err.originalResponse?.getStatus() ?? 'network'));
          return true;
        },
        onChunkComplete: () => {
          if (cut) return;
          cut = true;
          link.cut();
          // The gateway is back two seconds later.
          setTimeout(() => link.restore(), 2000);
        },
        onError: reject,
        onSuccess: ({ lastResponse }) => {
          const id = lastResponse.getHeader('Upload-Video-Id');
          if (id) resolve(id);
          else reject(new Error('no Upload-Video-Id in the last answer'));
        },
      });
      upload.start();
    });
    // The client did retry: the store was gone for part of the upload.
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((s) => s === '503' || s === 'network')).toBe(true);
    const videos = await server.ctx.db.all<{ id: string }>('SELECT id FROM videos');
    expect(videos).toEqual([{ id: videoId }]);
    expect(await bucketKeys(bucket.bucket, 'videos/')).toEqual([`videos/${videoId}/thumbnail.jpg`, `videos/${videoId}/video.mp4`]);
    // tus-js-client gives up an upload URL whose HEAD failed (503 while the store was down) and
    // creates a new upload: the abandoned one's objects stay at the bucket's root until tus's
    // expiry sweep; nothing of it is published.
    const rest = (await bucketKeys(bucket.bucket)).filter((k) => !k.startsWith('videos/'));
    expect(rest.every((k) => /^[A-Za-z0-9-]+(\.info|\.part)?$/.test(k))).toBe(true);
    expect(filesUnder(path.join(server.store.dataDir, 'media'))).toEqual([]);
  }, 120_000);

  it('a multipart upload cut while its original goes to the bucket is refused with 503 and leaves nothing', async () => {
    const token = await adminToken(server);
    const before = await bucketKeys(bucket.bucket);
    const big = await makeSizedClip(fixtures, { width: 1280, height: 720, seconds: 16, kbps: 60_000 });
    const size = fs.statSync(big).size;
    expect(size).toBeGreaterThan(24 * 1024 * 1024); // more than one 16 MiB part
    // Cut once half the original has gone to the store (thumbnail first, then the parts).
    link.holdAfter(Math.floor(size / 2), 'up');
    const cutting = setInterval(() => {
      if (!link.isHeld()) return;
      clearInterval(cutting);
      link.cut();
      link.release();
    }, 20);
    try {
      const refused = await postUpload(server.url, token, { title: 'Cut mid-parts', accessLevel: 'free' }, { video: big });
      expect([refused.status, refused.body]).toEqual([503, { success: false, error: MEDIA_STORE_UNAVAILABLE }]);
    } finally {
      clearInterval(cutting);
      link.restore();
    }
    expect((await server.ctx.db.all<{ title: string }>('SELECT title FROM videos')).map((v) => v.title)).toEqual(['Through a restart']);
    // What reached the store before the cut (the thumbnail) goes once the store answers again.
    await waitFor(async () => ((await bucketKeys(bucket.bucket)).length === before.length ? true : undefined));
    expect(await bucketKeys(bucket.bucket)).toEqual(before);
    await waitFor(async () => (filesUnder(path.join(server.store.dataDir, 'media')).length === 0 ? true : undefined));
  }, 120_000);
});
