/**
 * Media beyond one machine, on PostgreSQL and a real S3 server (the tests' Ceph RGW): two API
 * servers with different data directories (no shared disk) share the database and one bucket. A
 * multipart upload through one lands in the bucket; a tus upload (tus-js-client) begun through the
 * other is finished through the first (its bytes so far in the bucket, not on a disk); each video plays (progressive and HLS, transcoded by the leader) through the other
 * server; nothing of a video stays on either server's disk; deleting a video removes its objects.
 * A tus upload finished through one server is known as finished by the other (HEAD, PATCH: the
 * completion record is in the database), an upload finished by both at once makes one video, and
 * each server's `uploads_in_progress{kind="tus"}` counts the unfinished uploads of both.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, type FreshStore, freshStore, startTestServer, TEST_DATABASE_URL, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds } from '../../test/s3.js';
import { parseExposition } from '../metrics/exposition.testkit.js';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { createTusS3Store } from '../uploads/tusS3Store.js';
import { tusKeys } from '../uploads/tusUploads.js';
import { postUpload } from '../uploads/upload.testkit.js';
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

/** A server's `uploads_in_progress{kind="tus"}`, as Prometheus would read it. */
async function unfinishedTus(server: TestServer): Promise<number | undefined> {
  return parseExposition(await server.ctx.metrics.registry.metrics()).find('uploads_in_progress', { kind: 'tus' })[0]?.value;
}

const tusHeaders = (token: string, more: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  'tus-resumable': '1.0.0',
  ...more,
});

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
      expect((await bucketKeys(bucket.bucket)).filter((k) => k.includes(uploadId))).toEqual(
        expect.arrayContaining([`media/tus/${uploadId}.info`]),
      );
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
    // The original is the admins' progressive file; members get HLS (and a rendition within their cap).
    const token = field === 'streamUrl' ? await adminToken(server) : viewer.token;
    const r = await apiClient(server.url).get(`/videos/${videoId}/stream`, token);
    expect(r.status).toBe(200);
    // A same-origin path: any server of the site serves it.
    return `${server.url}${r.body.data[field]}`;
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

  it('an upload finished through A is finished for B: HEAD gives its video id, a PATCH is told so, tus-js-client sends nothing', async () => {
    const [tokenA, tokenB] = [await adminToken(a), await adminToken(b)];
    const size = fs.statSync(clip).size;
    // The whole upload through A, its final PATCH included.
    let uploadUrl = '';
    const videoId = await new Promise<string>((resolve, reject) => {
      const handle: tus.Upload = new tus.Upload(fs.createReadStream(clip), {
        endpoint: `${a.url}/api/admin/uploads`,
        metadata: { filename: 'lost-answer.mp4', title: 'Lost answer', accessLevel: 'free' },
        chunkSize: Math.ceil(size / 2),
        storeFingerprintForResuming: false,
        retryDelays: null,
        headers: { Authorization: `Bearer ${tokenA}` },
        onError: reject,
        onSuccess: ({ lastResponse }) => {
          uploadUrl = handle.url as string;
          resolve(lastResponse.getHeader('Upload-Video-Id') ?? '');
        },
      });
      handle.start();
    });
    expect(videoId).toBeTruthy();
    const uploadId = uploadUrl.slice(uploadUrl.lastIndexOf('/') + 1);
    // The client lost that answer and asks B, which never saw the upload's end.
    const head = await fetch(`${b.url}/api/admin/uploads/${uploadId}`, { method: 'HEAD', headers: tusHeaders(tokenB) });
    expect([head.status, head.headers.get('upload-offset'), head.headers.get('upload-video-id')]).toEqual([200, String(size), videoId]);
    const status = await apiClient(b.url).get(`/admin/uploads/${uploadId}`, tokenB);
    expect(status.body.data).toMatchObject({ status: 'completed', offset: size, videoId });
    // A client that sends its last chunk again to B is told the upload is complete (not 404: the file is not lost).
    const patch = await fetch(`${b.url}/api/admin/uploads/${uploadId}`, {
      method: 'PATCH',
      headers: tusHeaders(tokenB, { 'upload-offset': String(Math.ceil(size / 2)), 'content-type': 'application/offset+octet-stream' }),
      body: new Uint8Array(fs.readFileSync(clip).subarray(Math.ceil(size / 2))),
    });
    expect([patch.status, patch.headers.get('upload-offset'), patch.headers.get('upload-video-id')]).toEqual([409, String(size), videoId]);
    expect(((await patch.json()) as { success: boolean }).success).toBe(false);
    // tus-js-client resuming the URL on B counts the upload as done, with the video id, and sends no byte.
    let patches = 0;
    const resumed = await new Promise<string | null>((resolve, reject) => {
      new tus.Upload(fs.createReadStream(clip), {
        uploadUrl: `${b.url}/api/admin/uploads/${uploadId}`,
        storeFingerprintForResuming: false,
        retryDelays: null,
        headers: { Authorization: `Bearer ${tokenB}` },
        onBeforeRequest: (req) => {
          if (req.getMethod() === 'PATCH') patches++;
        },
        onError: reject,
        onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Upload-Video-Id') ?? null),
      }).start();
    });
    expect([resumed, patches]).toEqual([videoId, 0]);
    // One video, and no completion record on either disk.
    const rows = await a.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Lost answer']);
    expect(rows).toEqual([{ id: videoId }]);
    for (const server of [a, b]) expect(filesUnder(path.join(server.store.dataDir, 'uploads'))).toEqual([]);
  });

  it('an upload whose last byte reached the bucket but was never ingested, finished by A and B at once, makes one video', async () => {
    const [tokenA, tokenB] = [await adminToken(a), await adminToken(b)];
    const bytes = fs.readFileSync(clip);
    const created = await fetch(`${a.url}/api/admin/uploads`, {
      method: 'POST',
      headers: tusHeaders(tokenA, {
        'upload-length': String(bytes.length),
        'upload-metadata': `filename ${Buffer.from('twice.mp4').toString('base64')},title ${Buffer.from('Finished twice').toString('base64')}`,
      }),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location') as string;
    const uploadId = location.slice(location.lastIndexOf('/') + 1);
    // The state a process dying between the last byte and ingestion leaves: every byte in the bucket, no video.
    const behindTheBack = createTusS3Store(a.ctx.env);
    const key = tusKeys(behindTheBack.keyPrefix).storeKey(uploadId);
    await behindTheBack.write(Readable.from([bytes]), key, 0);
    expect((await behindTheBack.getUpload(key)).offset).toBe(bytes.length);
    // Two clients (or one retrying through the balancer) ask both servers at once; each finishes it.
    const heads = await Promise.all(
      [
        [a, tokenA],
        [b, tokenB],
      ].map(([server, token]) =>
        fetch(`${(server as TestServer).url}/api/admin/uploads/${uploadId}`, { method: 'HEAD', headers: tusHeaders(token as string) }),
      ),
    );
    const answered = heads.map((h) => [h.status, h.headers.get('upload-video-id')]);
    const videoId = answered[0]?.[1];
    expect(videoId).toBeTruthy();
    expect(answered).toEqual([
      [200, videoId],
      [200, videoId],
    ]);
    const rows = await a.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Finished twice']);
    expect(rows).toEqual([{ id: videoId }]);
    // The other attempt's objects went with its rolled-back video: only the winner's are in the bucket.
    const known = new Set((await a.ctx.db.all<{ id: string }>('SELECT id FROM videos')).map((v) => v.id));
    const stored = new Set((await bucketKeys(bucket.bucket, 'media/videos/')).map((k) => k.split('/')[2]));
    expect([...stored].filter((id) => !known.has(id as string))).toEqual([]);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.includes(uploadId))).toEqual([]);
  });

  it('counts unfinished tus uploads of every server in each server\'s uploads_in_progress{kind="tus"}', async () => {
    const [tokenA, tokenB] = [await adminToken(a), await adminToken(b)];
    const before = await unfinishedTus(b);
    expect(before).toBe(await unfinishedTus(a));
    const created = await fetch(`${a.url}/api/admin/uploads`, {
      method: 'POST',
      headers: tusHeaders(tokenA, {
        'upload-length': String(fs.statSync(clip).size),
        'upload-metadata': `filename ${Buffer.from('open.mp4').toString('base64')},title ${Buffer.from('Open').toString('base64')}`,
        'content-type': 'application/offset+octet-stream',
      }),
      body: new Uint8Array(fs.readFileSync(clip).subarray(0, 1000)),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location') as string;
    // Begun through A: B counts it as well as A (one figure for the site, not per process).
    expect([await unfinishedTus(a), await unfinishedTus(b)]).toEqual([(before ?? 0) + 1, (before ?? 0) + 1]);
    const removed = await fetch(`${b.url}/api/admin/uploads/${location.slice(location.lastIndexOf('/') + 1)}`, {
      method: 'DELETE',
      headers: tusHeaders(tokenB),
    });
    expect(removed.status).toBe(204);
    expect([await unfinishedTus(a), await unfinishedTus(b)]).toEqual([before, before]);
  });

  it('/api/health names the media store and that it is reachable', async () => {
    const health = await apiClient(b.url).get('/health', await adminToken(b));
    expect(health.body.data.media).toEqual({ kind: 's3', reachable: true });
  });

  it('deleting a video through one server removes its objects', async () => {
    const r = await apiClient(b.url).del(`/admin/videos/${ids.viaA}`, await adminToken(b));
    expect(r.status).toBe(200);
    expect(await bucketKeys(bucket.bucket, `media/videos/${ids.viaA}/`)).toEqual([]);
    expect((await bucketKeys(bucket.bucket, `media/videos/${ids.viaB}/`)).length).toBeGreaterThan(2);
  });
});
