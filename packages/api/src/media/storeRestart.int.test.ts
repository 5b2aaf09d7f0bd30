/**
 * A real restart of the object store in the middle of uploads: the server's MEDIA_STORE endpoint is
 * a radosgw of this test's own in the tests' Ceph cluster (scripts/rgwCluster.mjs
 * startExtraGateway; the shared gateway other suites use is not touched), and the test SIGKILLs that
 * gateway process and starts it again on the same port. A resumable (tus-js-client) upload killed
 * after its first chunk retries, finishes once the gateway is back, publishes its video once and
 * plays. A multipart upload killed while the server stores its original (an S3 multipart upload,
 * half its bytes sent: a TCP relay between server and gateway pauses there so the kill lands
 * mid-parts) is refused with 503 and the store's message: no video, and once the gateway is back no
 * object, no unfinished multipart upload and no scratch file; sent again, it is published. (A store
 * cut under a running transcode, and the SIGKILLed runner, are s3Runners.int.test.ts's.)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type ExtraGateway, extraGateway, type FreshBucket, freshBucket, mediaKinds, testS3Client } from '../../test/s3.js';
import { waitFor } from '../transcode/runners.testkit.js';
import { postUpload } from '../uploads/upload.testkit.js';
import { mediaBinaries } from './ffmpeg.js';
import { filesUnder, makeMp4, makeSizedClip } from './media.testkit.js';
import { type Relay, relay } from './relay.testkit.js';
import { MEDIA_STORE_UNAVAILABLE } from './storage.js';

const run = promisify(execFile);
const fixtures = tmpDir('store-restart-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(mediaKinds().includes('s3'))('the object store restarting during uploads (radosgw SIGKILLed and started again) [s3]', () => {
  let bucket: FreshBucket;
  let gateway: ExtraGateway;
  let link: Relay;
  let server: TestServer;

  /** Unfinished S3 multipart uploads in the test's bucket (seen through the shared gateway). */
  const unfinished = async () =>
    ((await testS3Client().send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket }))).Uploads ?? []).map((u) => ({
      key: u.Key as string,
      uploadId: u.UploadId as string,
    }));
  const transcoded = (videoId: string) =>
    waitFor(async () => {
      const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
      return row && ['completed', 'failed'].includes(row.transcode_status) ? row.transcode_status : undefined;
    });
  /** ffprobe through the server: the HLS ladder (signed master, key, encrypted segments) or the progressive file. */
  const duration = async (videoId: string, field: 'hlsUrl' | 'streamUrl' = 'hlsUrl') => {
    const stream = (await apiClient(server.url).get(`/videos/${videoId}/stream`, await adminToken(server))).body.data;
    const { stdout } = await run(
      mediaBinaries().ffprobe,
      ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', `${server.url}${stream[field]}`],
      {
        timeout: 120_000,
      },
    );
    return Number(JSON.parse(stdout).format.duration);
  };

  beforeAll(async () => {
    bucket = await freshBucket();
    gateway = await extraGateway();
    // A relay passes everything through; it only pauses the multipart upload at a mark (below).
    link = await relay(new URL(gateway.endpoint));
    server = await startTestServer('sqlite', {
      env: { ...bucket.env, AWS_ENDPOINT_URL_S3: link.url, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await link?.close();
    await gateway?.close();
    await bucket?.cleanup();
  });

  it('a tus upload whose gateway is killed after the first chunk resumes once it is back, publishes its video once, and it plays', async () => {
    const token = await adminToken(server);
    const clip = await makeMp4(fixtures, 4);
    const attempts: string[] = [];
    const bodies503: string[] = [];
    let restarted: Promise<void> | undefined;
    const videoId = await new Promise<string>((resolve, reject) => {
      const upload: tus.Upload = new tus.Upload(fs.createReadStream(clip), {
        endpoint: `${server.url}/api/admin/uploads`,
        headers: { Authorization: `Bearer ${token}` },
        metadata: { filename: 'restart.mp4', title: 'Through a restart', accessLevel: 'free' },
        chunkSize: Math.ceil(fs.statSync(clip).size / 3),
        storeFingerprintForResuming: false,
        retryDelays: [500, 1000, 1000, 2000, 2000, 4000, 4000, 4000],
        onShouldRetry: (err) => {
          attempts.push(String(err.originalResponse?.getStatus() ?? 'network'));
          if (err.originalResponse?.getStatus() === 503) bodies503.push(err.originalResponse.getBody());
          return true;
        },
        onChunkComplete: () => {
          if (restarted) return;
          // The gateway process dies; it is started again two seconds later, on the same port.
          restarted = gateway
            .stop('SIGKILL')
            // fixed wait: the outage under test lasts 2 s (the client retries through it); nothing to observe
            .then(() => sleep(2000))
            .then(() => gateway.start());
          // A gateway that could not be stopped or started again fails the test with that cause.
          restarted.catch(reject);
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
    await restarted;
    // The client did retry: the gateway was gone for part of the upload, and the server said so.
    expect(attempts).toContain('503');
    expect(attempts.every((s) => s === '503' || s === 'network')).toBe(true);
    // The 503s say why, in the store's words.
    expect(bodies503.every((b) => b.includes(MEDIA_STORE_UNAVAILABLE))).toBe(true);
    expect(await server.ctx.db.all<{ id: string }>('SELECT id FROM videos')).toEqual([{ id: videoId }]);
    expect(await transcoded(videoId)).toBe('completed');
    expect(await duration(videoId)).toBeGreaterThan(3.5);
    const keys = await bucketKeys(bucket.bucket, `videos/${videoId}/`);
    expect(keys.filter((k) => !k.includes('/hls/'))).toEqual([`videos/${videoId}/thumbnail.jpg`, `videos/${videoId}/video.mp4`]);
    // tus-js-client gives up an upload URL whose HEAD failed (503 while the gateway was down) and
    // creates a new upload: the abandoned one's objects stay under `tus/` (the site's tus prefix; no
    // PREFIX here) until tus's expiry sweep; nothing of it is published.
    const rest = (await bucketKeys(bucket.bucket)).filter((k) => !k.startsWith('videos/'));
    expect(rest.every((k) => /^tus\/[A-Za-z0-9-]+(\.info|\.part)?$/.test(k))).toBe(true);
    expect(filesUnder(path.join(server.store.dataDir, 'media'))).toEqual([]);
  }, 180_000);

  it('a multipart upload whose gateway is killed mid-parts gets 503 and leaves nothing once it is back; sent again it is published', async () => {
    const token = await adminToken(server);
    const before = await bucketKeys(bucket.bucket);
    const uploadsBefore = await unfinished();
    const titles = async () => (await server.ctx.db.all<{ title: string }>('SELECT title FROM videos ORDER BY title')).map((v) => v.title);
    const titlesBefore = await titles();
    const big = await makeSizedClip(fixtures, { width: 1280, height: 720, seconds: 16, kbps: 60_000 });
    const size = fs.statSync(big).size;
    expect(size).toBeGreaterThan(24 * 1024 * 1024); // more than one 16 MiB part
    // Kill the gateway once half the original has gone up to it (thumbnail first, then the parts):
    // the relay in front of it stops passing bytes at that mark, so the kill certainly lands
    // mid-parts (watching the bucket for the first part raced the upload's end), then lets go.
    link.holdAfter(Math.floor(size / 2), 'up');
    const killer = (async () => {
      while (!link.isHeld()) await sleep(20);
      await gateway.stop('SIGKILL');
      link.release();
    })();
    const refused = await postUpload(server.url, token, { title: 'Killed mid-parts', accessLevel: 'free' }, { video: big });
    await killer;
    expect([refused.status, refused.body]).toEqual([
      503,
      { success: false, error: MEDIA_STORE_UNAVAILABLE, code: 'media.store_unavailable' },
    ]);
    expect(await titles()).toEqual(titlesBefore);
    // While the gateway is down the upload's parts and thumbnail are still in the cluster.
    expect((await unfinished()).length).toBeGreaterThan(uploadsBefore.length);

    await gateway.start();
    // Once the gateway answers again the server removes what reached it: the thumbnail and the
    // unfinished multipart upload of the original (its parts).
    await waitFor(async () => ((await bucketKeys(bucket.bucket)).length === before.length ? true : undefined));
    expect(await bucketKeys(bucket.bucket)).toEqual(before);
    await waitFor(async () => ((await unfinished()).length === uploadsBefore.length ? true : undefined));
    expect(await unfinished()).toEqual(uploadsBefore);
    await waitFor(async () => (filesUnder(path.join(server.store.dataDir, 'media')).length === 0 ? true : undefined));

    // Sent again, the same file is published.
    const again = await postUpload(server.url, token, { title: 'Sent again', accessLevel: 'free' }, { video: big });
    expect(again.status).toBe(201);
    const videoId = again.body.data.videoId as string;
    expect(await bucketKeys(bucket.bucket, `videos/${videoId}/`)).toEqual(
      expect.arrayContaining([`videos/${videoId}/thumbnail.jpg`, `videos/${videoId}/video.mp4`]),
    );
    expect(await duration(videoId, 'streamUrl')).toBeGreaterThan(15);
  }, 240_000);
});
