/**
 * Media beyond one machine, on PostgreSQL and a real S3 server (the tests' Ceph RGW): two API
 * servers with different data directories (no shared disk) share the database and one bucket. A
 * multipart upload through one lands in the bucket; a tus upload (tus-js-client) begun through the
 * other is finished through the first (its bytes so far in the bucket, not on a disk); each video plays (progressive and HLS, transcoded by the leader) through the other
 * server; nothing of a video stays on either server's disk; deleting a video removes its objects.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, type FreshStore, freshStore, startTestServer, TEST_DATABASE_URL, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds } from '../../test/s3.js';
import { postUpload } from '../catalog/upload.testkit.js';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { mediaBinaries } from './ffmpeg.js';
import { makeMp4 } from './media.testkit.js';

const run = promisify(execFile);
const fixtures = tmpDir('shared-bucket-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));
const SERVER_ENV = { TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast', ACCESS_TOKEN_TTL_SECONDS: String(24 * 3600) };

/** Every file under a directory, relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

async function waitForTranscode(server: TestServer, videoId: string): Promise<string> {
  for (;;) {
    const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
    if (row && ['completed', 'failed'].includes(row.transcode_status)) return row.transcode_status;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface TusEnd {
  server: TestServer;
  token: string;
}

/**
 * A tus upload begun through `first` (stopped after its first chunk) and finished through
 * `second`, which learns the offset from the bucket: no disk is shared. Resolves with the video id.
 */
async function tusAcross(first: TusEnd, second: TusEnd, file: string, onPaused: (uploadId: string) => Promise<void>): Promise<string> {
  const common = {
    metadata: { filename: 'via-b.mp4', title: 'Via B (tus)', accessLevel: 'free' },
    chunkSize: Math.ceil(fs.statSync(file).size / 3),
    storeFingerprintForResuming: false,
    retryDelays: null,
  };
  const url = await new Promise<string>((resolve, reject) => {
    const handle: tus.Upload = new tus.Upload(fs.createReadStream(file), {
      ...common,
      endpoint: `${first.server.url}/api/admin/uploads`,
      headers: { Authorization: `Bearer ${first.token}` },
      onError: reject,
      onChunkComplete: () => {
        void handle.abort().then(() => resolve(handle.url as string));
      },
    });
    handle.start();
  });
  const uploadId = url.slice(url.lastIndexOf('/') + 1);
  await onPaused(uploadId);
  return new Promise((resolve, reject) => {
    new tus.Upload(fs.createReadStream(file), {
      ...common,
      uploadUrl: `${second.server.url}/api/admin/uploads/${uploadId}`,
      headers: { Authorization: `Bearer ${second.token}` },
      onError: reject,
      onSuccess: ({ lastResponse }) => {
        const id = lastResponse.getHeader('Upload-Video-Id');
        if (id) resolve(id);
        else reject(new Error('no Upload-Video-Id in the last answer'));
      },
    }).start();
  });
}

const available = Boolean(TEST_DATABASE_URL) && mediaKinds().includes('s3');
if (!TEST_DATABASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set in CI');

describe.runIf(available)('two API servers, two data directories, one database and one bucket [postgres+s3]', () => {
  let bucket: FreshBucket;
  let storeA: FreshStore;
  let storeB: FreshStore;
  let a: TestServer;
  let b: TestServer;
  let viewer: TestViewer;
  let clip: string;
  const ids = { viaA: '', viaB: '' };

  beforeAll(async () => {
    bucket = await freshBucket('media');
    storeA = await freshStore('postgres');
    const dirB = tmpDir('members-test-b-');
    storeB = {
      env: { DATA_DIR: dirB, DATABASE_URL: storeA.env.DATABASE_URL as string },
      dataDir: dirB,
      cleanup: async () => fs.rmSync(dirB, { recursive: true, force: true }),
    };
    a = await startTestServer('postgres', { store: storeA, bucket, env: SERVER_ENV });
    b = await startTestServer('postgres', { store: storeB, bucket, env: SERVER_ENV });
    viewer = await createTestUser(a.ctx);
    await grantActiveSubscriptionForTest(a.ctx, viewer.id);
    clip = await makeMp4(fixtures, 3);
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await bucket?.cleanup();
  });

  it('a multipart upload through A and a tus upload begun through B and finished through A land in the bucket, not on a disk', async () => {
    const viaA = await postUpload(a.url, await adminToken(a), { title: 'Via A (multipart)', accessLevel: 'free' }, { video: clip });
    expect(viaA.status).toBe(201);
    ids.viaA = viaA.body.data.videoId;
    const [tokenA, tokenB] = [await adminToken(a), await adminToken(b)];
    ids.viaB = await tusAcross({ server: b, token: tokenB }, { server: a, token: tokenA }, clip, async (uploadId) => {
      // Paused: the bytes so far are in the bucket, not on B's disk.
      expect((await bucketKeys(bucket.bucket)).filter((k) => k.startsWith(uploadId))).toEqual(expect.arrayContaining([`${uploadId}.info`]));
      expect(filesUnder(path.join(b.store.dataDir, 'uploads'))).toEqual([]);
    });
    // The finished upload's objects are gone; only the videos' remain.
    expect((await bucketKeys(bucket.bucket)).filter((k) => !k.startsWith('media/videos/'))).toEqual([]);
    for (const id of [ids.viaA, ids.viaB]) {
      // (Its HLS ladder may be there already: the leader transcodes meanwhile.)
      const keys = await bucketKeys(bucket.bucket, `media/videos/${id}/`);
      expect(keys.filter((k) => !k.includes('/hls/'))).toEqual([`media/videos/${id}/thumbnail.jpg`, `media/videos/${id}/video.mp4`]);
    }
    expect(fs.readFileSync(clip).equals(Buffer.from(await (await fetch(await streamUrlOf(b, ids.viaA))).arrayBuffer()))).toBe(true);
  });

  async function streamUrlOf(server: TestServer, videoId: string, field: 'streamUrl' | 'hlsUrl' = 'streamUrl'): Promise<string> {
    const r = await apiClient(server.url).get(`/videos/${videoId}/stream`, viewer.token);
    expect(r.status).toBe(200);
    // The URL names the server the viewer asked; any server of the site serves it.
    const url = new URL(r.body.data[field]);
    return `${server.url}${url.pathname}${url.search}`;
  }

  it('each video is transcoded once into the bucket and plays over HLS through the other server', async () => {
    for (const id of [ids.viaA, ids.viaB]) expect(await waitForTranscode(a, id)).toBe('completed');
    for (const [id, other] of [
      [ids.viaA, b],
      [ids.viaB, a],
    ] as const) {
      const keys = await bucketKeys(bucket.bucket, `media/videos/${id}/hls/`);
      expect(keys).toContain(`media/videos/${id}/hls/master.m3u8`);
      expect(keys.some((k) => /\/seg_00000\.ts$/.test(k))).toBe(true);
      const hls = await streamUrlOf(other, id, 'hlsUrl');
      const { stdout } = await run(mediaBinaries().ffprobe, ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'json', hls], {
        timeout: 120_000,
      });
      expect(JSON.parse(stdout).streams.map((s: { codec_type: string }) => s.codec_type)).toContain('video');
      const thumb = await fetch(`${other.url}/api/videos/${id}/thumbnail`);
      expect([thumb.status, thumb.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    }
    for (const server of [a, b]) {
      expect(filesUnder(path.join(server.store.dataDir, 'media'))).toEqual([]);
      expect(filesUnder(path.join(server.store.dataDir, 'uploads', 'tus'))).toEqual([]);
    }
  }, 300_000);

  it('/api/health names the media store and that it is reachable', async () => {
    const health = await apiClient(b.url).get('/health');
    expect(health.body.data.media).toEqual({ kind: 's3', reachable: true });
  });

  it('deleting a video through one server removes its objects', async () => {
    const r = await apiClient(b.url).del(`/admin/videos/${ids.viaA}`, await adminToken(b));
    expect(r.status).toBe(200);
    expect(await bucketKeys(bucket.bucket, `media/videos/${ids.viaA}/`)).toEqual([]);
    expect((await bucketKeys(bucket.bucket, `media/videos/${ids.viaB}/`)).length).toBeGreaterThan(2);
  });
});
