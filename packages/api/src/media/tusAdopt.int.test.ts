/**
 * A finished tus upload on the object store becomes a video without its bytes coming back to the
 * API process (the tests' Ceph RGW behind a relay that counts what crosses it): ffprobe and the
 * thumbnail read the tus object through a presigned URL, the original is a server-side copy
 * (CopyObject), the tus objects go. Before, the process downloaded the whole file to scratch and
 * uploaded it again. A store that goes away while ffprobe reads the upload is a 503 that keeps the
 * upload (not "not a video", which would discard it); a file that is not a video is refused and
 * removed; an upload complete in the bucket but never ingested is swept once expired (tus's own
 * sweep only sees unfinished multipart uploads). The copy above S3's single-copy limit (UploadPartCopy parts) is tested with a small
 * limit on the same gateway.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { S3Store } from '@tus/s3-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, mediaKinds, TEST_S3, testS3Client } from '../../test/s3.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { createTusS3Store } from '../uploads/tusS3Store.js';
import { tusKeys } from '../uploads/tusUploads.js';
import { filesUnder, makeFakeVideo, makeSizedClip } from './media.testkit.js';
import type { Relay } from './relay.testkit.js';
import { parseMediaStore, s3ClientConfig } from './s3Config.js';
import { copyWithinBucket } from './s3Copy.js';
import { MEDIA_STORE_UNAVAILABLE } from './storage.js';
import { type ServerBehindRelay, serverBehindRelay } from './storeRelay.testkit.js';

const fixtures = tmpDir('tus-adopt-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const MiB = 1024 * 1024;

describe.runIf(mediaKinds().includes('s3'))('a finished tus upload is adopted in the bucket, not downloaded [s3]', () => {
  let bucket: FreshBucket;
  let link: Relay;
  let server: TestServer;
  let setup: ServerBehindRelay | undefined;

  beforeAll(async () => {
    setup = await serverBehindRelay({ prefix: 'site', backpressure: true });
    ({ bucket, link, server } = setup);
  });
  afterAll(() => setup?.close());

  it('the final PATCH probes the upload where it is and copies it server-side: a fraction of its bytes cross, none twice', async () => {
    const clip = await makeSizedClip(fixtures, { width: 1280, height: 720, seconds: 20, kbps: 40_000 });
    const bytes = fs.readFileSync(clip);
    const size = bytes.length;
    expect(size).toBeGreaterThan(30 * MiB);
    const token = await adminToken(server);
    const tusHeaders = { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' };
    const created = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: {
        ...tusHeaders,
        'upload-length': String(size),
        'upload-metadata': [
          `filename ${Buffer.from('adopted.mp4').toString('base64')}`,
          `title ${Buffer.from('Adopted').toString('base64')}`,
          // The first frame: the thumbnail reads little, so what the probe reads is what is measured.
          `thumbnailAtSeconds ${Buffer.from('0').toString('base64')}`,
        ].join(','),
      },
    });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location') as string, server.url).toString();
    const uploadId = url.slice(url.lastIndexOf('/') + 1);
    const patch = (from: number, to: number) =>
      fetch(url, {
        method: 'PATCH',
        headers: { ...tusHeaders, 'upload-offset': String(from), 'content-type': 'application/offset+octet-stream' },
        body: new Uint8Array(bytes.subarray(from, to)),
      });
    // Whole 8 MiB parts first (tus's S3 part size: nothing left waiting in `{id}.part`), then the
    // rest: the final PATCH stores its bytes as the last part and ingests.
    const lastStart = Math.floor((size - 1) / (8 * MiB)) * 8 * MiB;
    expect((await patch(0, lastStart)).status).toBe(204);
    const before = link.traffic();
    const last = await patch(lastStart, size);
    const after = link.traffic();
    expect(last.status).toBe(204);
    const videoId = last.headers.get('upload-video-id') as string;
    expect(videoId).toBeTruthy();
    const crossed = { down: after.down - before.down, up: after.up - before.up };
    console.log(
      `final PATCH of a ${(size / MiB).toFixed(1)} MiB upload: ${(crossed.down / MiB).toFixed(2)} MiB from the store, ${(crossed.up / MiB).toFixed(2)} MiB to it`,
    );
    // Up: the final PATCH's own bytes and a thumbnail; down: what ffprobe and the thumbnail frame
    // read (socket buffers included). Downloading and uploading again is the whole file each way.
    expect(crossed.up).toBeLessThan(size - lastStart + MiB);
    expect(crossed.down).toBeLessThan(size * 0.6);
    // The original is the upload's bytes, under the site's prefix, typed; the tus objects are gone.
    const s3 = testS3Client();
    const original = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: `site/videos/${videoId}/video.mp4` }));
    expect(original.ContentType).toBe('video/mp4');
    expect(Buffer.from(await (original.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()).equals(bytes)).toBe(
      true,
    );
    expect(await bucketKeys(bucket.bucket)).toEqual([`site/videos/${videoId}/thumbnail.jpg`, `site/videos/${videoId}/video.mp4`]);
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket }))).Uploads ?? []).toEqual([]);
    // Nothing of it on the process's disk either.
    expect(filesUnder(`${server.store.dataDir}/media`)).toEqual([]);
    expect(uploadId).toBeTruthy();
  }, 120_000);

  /** Creates a tus upload of `bytes`; `send()` is the one PATCH with all of them (which ingests). */
  async function created(bytes: Buffer, title: string) {
    const headers = { authorization: `Bearer ${await adminToken(server)}`, 'tus-resumable': '1.0.0' };
    const meta = [`filename ${Buffer.from(`${title}.mp4`).toString('base64')}`, `title ${Buffer.from(title).toString('base64')}`];
    const answer = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: { ...headers, 'upload-length': String(bytes.length), 'upload-metadata': meta.join(',') },
    });
    expect(answer.status).toBe(201);
    const url = new URL(answer.headers.get('location') as string, server.url).toString();
    return {
      id: url.slice(url.lastIndexOf('/') + 1),
      send: () =>
        fetch(url, {
          method: 'PATCH',
          headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
          body: new Uint8Array(bytes),
        }),
      head: () => fetch(url, { method: 'HEAD', headers }),
    };
  }

  it('a store cut while the last PATCH ingests (ffprobe reading the upload) answers 503 and keeps it; HEAD finishes it once the store is back', async () => {
    const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 6, kbps: 8_000 });
    const bytes = fs.readFileSync(clip);
    const upload = await created(bytes, 'Probe cut');
    // The last PATCH stores the bytes (a few KB of answers come down), then ffprobe reads (MBs): cut it there.
    link.holdAfter(256 * 1024, 'down');
    const answer = upload.send();
    for (let i = 0; i < 400 && !link.isHeld(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(link.isHeld()).toBe(true);
    link.cut();
    link.release();
    const refused = await answer;
    expect([refused.status, await refused.json()]).toEqual([
      503,
      { success: false, error: MEDIA_STORE_UNAVAILABLE, code: 'media.store_unavailable' },
    ]);
    expect(await server.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Probe cut'])).toEqual([]);
    // The store is back: the upload was kept, and HEAD (what a client asks next) finishes it.
    link.restore();
    const head = await upload.head();
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(bytes.length)]);
    const videoId = head.headers.get('upload-video-id');
    expect(await server.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Probe cut'])).toEqual([{ id: videoId }]);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.includes(upload.id))).toEqual([]);
  }, 60_000);

  it('a video in the bucket that cannot be read because the store is unreachable is a 503, not "not a video"', async () => {
    const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 6, kbps: 8_000 });
    const s3 = testS3Client();
    const tusPrefix = `${parseMediaStore(server.ctx.env.MEDIA_STORE).prefix}tus/`;
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: `${tusPrefix}unread-upload`, Body: fs.readFileSync(clip) }));
    const object = server.ctx.media.uploadedObject('unread-upload');
    link.cut(); // ffprobe's presigned read is refused, and so is the store's check
    try {
      const result = await ingestVideoFile(server.ctx, {
        remote: { object, size: fs.statSync(clip).size },
        title: 'Unread',
        actorId: 'test-admin',
      });
      expect(result).toEqual({ ok: false, error: { code: 'media.store_unavailable', status: 503, message: MEDIA_STORE_UNAVAILABLE } });
    } finally {
      link.restore();
    }
    expect(await server.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Unread'])).toEqual([]);
  });

  it('a file that is not a video is refused with the reason and removed from the bucket', async () => {
    const fake = fs.readFileSync(makeFakeVideo(fixtures));
    const upload = await created(fake, 'Not a video');
    const refused = await upload.send();
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/not a playable video/);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.includes(upload.id))).toEqual([]);
    expect(await server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [upload.id])).toBeUndefined();
  });

  it('an upload whose every byte reached the bucket but was never ingested is removed once expired (tus sweeps only unfinished ones)', async () => {
    const bytes = fs.readFileSync(makeFakeVideo(fixtures));
    const upload = await created(bytes, 'Never ingested');
    // Every byte in the bucket behind the server's back: the state a process dying before ingestion leaves.
    const direct = createTusS3Store({ ...server.ctx.env, AWS_ENDPOINT_URL_S3: TEST_S3?.endpoint ?? '' });
    await direct.write(Readable.from([bytes]), tusKeys(direct.keyPrefix).storeKey(upload.id), 0);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.includes(upload.id))).toEqual([
      `site/tus/${upload.id}`,
      `site/tus/${upload.id}.info`,
    ]);
    // Eight days later nobody asked for it; the sweep at start (and hourly) removes it and its row.
    await server.ctx.db.run('UPDATE tus_uploads SET created_at = ? WHERE id = ?', [
      new Date(Date.now() - 8 * 86_400_000).toISOString(),
      upload.id,
    ]);
    server = await server.restart({ PORT: String(server.port) });
    const left = async () => (await bucketKeys(bucket.bucket)).filter((k) => k.includes(upload.id));
    const row = () => server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [upload.id]);
    for (let i = 0; i < 100 && ((await left()).length > 0 || (await row())); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await left()).toEqual([]);
    expect(await row()).toBeUndefined();
  });

  it('an upload begun before the PREFIX/tus/ layout (no owner, objects at the bucket root) is removed from the root once expired, by its id only', async () => {
    // What the earlier version left: a tus upload at the bucket root, its row without an owner; and a
    // neighbour's object at the root that this site knows nothing of.
    const config = { bucket: bucket.bucket, ...s3ClientConfig({ ...server.ctx.env, AWS_ENDPOINT_URL_S3: TEST_S3?.endpoint ?? '' }) };
    const atRoot = new S3Store({ partSize: 8 * MiB, s3ClientConfig: config });
    const id = server.ctx.ids.next();
    await atRoot.create({ id, size: 100, offset: 0, metadata: {}, creation_date: new Date().toISOString() } as never);
    await atRoot.write(Readable.from([Buffer.alloc(10)]), id, 0);
    const s3 = testS3Client();
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: 'neighbour-upload', Body: 'x' }));
    await server.ctx.db.run('INSERT INTO tus_uploads (id, created_at, created_by) VALUES (?, ?, NULL)', [
      id,
      new Date(Date.now() - 8 * 86_400_000).toISOString(),
    ]);
    expect((await bucketKeys(bucket.bucket)).filter((k) => k.startsWith(id))).toEqual([`${id}.info`, `${id}.part`]);
    server = await server.restart({ PORT: String(server.port) });
    const left = async () => (await bucketKeys(bucket.bucket)).filter((k) => k.startsWith(id));
    const row = () => server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [id]);
    for (let i = 0; i < 100 && ((await left()).length > 0 || (await row())); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await left()).toEqual([]);
    expect(await row()).toBeUndefined();
    const open = (await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket, Prefix: id }))).Uploads ?? [];
    expect(open).toEqual([]);
    expect(await bucketKeys(bucket.bucket, 'neighbour-upload')).toEqual(['neighbour-upload']);
  });

  it('an object above the single-copy limit is copied in UploadPartCopy ranges, byte for byte', async () => {
    const s3 = testS3Client();
    const body = randomBytes(12 * MiB + 12_345);
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: 'source-object', Body: body }));
    // A 5 MiB part size (S3's smallest) and a limit below the object: three parts, the last short.
    await copyWithinBucket(
      s3,
      { bucket: bucket.bucket, from: 'source-object', to: 'copies/ranged.mp4', size: body.length, contentType: 'video/mp4' },
      { singleMax: MiB, partBytes: 5 * MiB },
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket.bucket, Key: 'copies/ranged.mp4' }));
    expect([head.ContentLength, head.ContentType]).toEqual([body.length, 'video/mp4']);
    expect(head.ETag).toMatch(/-3"$/); // a multipart object of three parts
    const copied = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: 'copies/ranged.mp4' }));
    expect(Buffer.from(await (copied.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()).equals(body)).toBe(
      true,
    );
    // A copy that fails (its source is gone) leaves no multipart upload behind.
    await expect(
      copyWithinBucket(
        s3,
        { bucket: bucket.bucket, from: 'no-such-object', to: 'copies/failed.mp4', size: body.length, contentType: 'video/mp4' },
        { singleMax: MiB, partBytes: 5 * MiB },
      ),
    ).rejects.toThrow();
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket.bucket }))).Uploads ?? []).toEqual([]);
    expect(await bucketKeys(bucket.bucket, 'copies/')).toEqual(['copies/ranged.mp4']);
  });
});
