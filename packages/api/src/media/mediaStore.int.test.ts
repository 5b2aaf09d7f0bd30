/**
 * One contract for both media stores, run against the local disk and against a real S3 server (the
 * tests' Ceph RADOS Gateway): files in and their source gone, stat and byte ranges, small texts,
 * ffprobe reading through ffmpegInput (a presigned URL on S3), a ladder published over an earlier
 * one, deletion of every object of a video (on S3 its unfinished multipart uploads too), keys outside
 * the pattern refused. For S3 also: a missing bucket and refused credentials are named by variable,
 * at check() and at server start.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, testEnv, tmpDir } from '../../test/harness.js';
import { type FreshBucket, forEachMediaStore, freshBucket, TEST_S3, testS3Client } from '../../test/s3.js';
import { probeVideo } from './ffmpeg.js';
import { localMediaStorage } from './localStore.js';
import { makeMp4 } from './media.testkit.js';
import { s3MediaStorage } from './s3Store.js';
import { type MediaStorage, MediaStoreError } from './storage.js';

const fixtures = tmpDir('media-store-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

function localFile(name: string, content: string | Buffer): string {
  const file = path.join(fixtures, `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${name}`);
  fs.writeFileSync(file, content);
  return file;
}

/** Files left under a data directory (what "nothing of a video on this disk" means). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

forEachMediaStore('media store contract', (kind) => {
  let dataDir: string;
  let bucket: FreshBucket | undefined;
  let storage: MediaStorage;

  beforeEach(async () => {
    dataDir = tmpDir('media-store-');
    if (kind === 's3') {
      bucket = await freshBucket('site-a');
      storage = s3MediaStorage(testEnv({ DATA_DIR: dataDir, ...bucket.env }));
    } else {
      storage = localMediaStorage(dataDir);
    }
  });
  afterEach(async () => {
    await bucket?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores a file (its source gone), states it, reads it whole and by range, and removes it with its video', async () => {
    await storage.check();
    const content = Buffer.from('0123456789abcdefghij'.repeat(1000));
    const source = localFile('video.mp4', content);
    const stored = await storage.putFile('vid-1', 'video.mp4', source);
    expect(stored).toEqual({ key: 'videos/vid-1/video.mp4', size: content.length });
    expect(fs.existsSync(source)).toBe(false);

    const stat = await storage.stat(stored.key);
    expect(stat?.size).toBe(content.length);
    expect(stat?.mtime.getTime()).toBeGreaterThan(Date.now() - 3600_000);
    expect(await readAll(await storage.openRead(stored.key))).toEqual(content);
    expect(await readAll(await storage.openRead(stored.key, { start: 10, end: 29 }))).toEqual(content.subarray(10, 30));

    await storage.putFile('vid-1', 'thumbnail.jpg', localFile('t.jpg', 'jpeg bytes'));
    await storage.putFile('vid-2', 'video.mp4', localFile('other.mp4', 'other'));
    expect((await storage.listVideo('vid-1')).sort()).toEqual(['videos/vid-1/thumbnail.jpg', 'videos/vid-1/video.mp4']);

    await storage.removeVideo('vid-1');
    expect(await storage.listVideo('vid-1')).toEqual([]);
    expect(await storage.stat(stored.key)).toBeNull();
    expect(await storage.listVideo('vid-2')).toEqual(['videos/vid-2/video.mp4']);
    await storage.removeVideo('vid-1'); // twice: not an error
    if (kind === 's3') expect(filesUnder(dataDir)).toEqual([]);
  });

  // Only a bucket has unfinished multipart uploads (registered for s3 alone, not a skip for local).
  if (kind === 's3')
    it('removing a video aborts its unfinished multipart uploads (the parts a cut upload left)', async () => {
      const client = testS3Client();
      const Bucket = bucket?.bucket as string;
      const begin = async (Key: string) => {
        const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
        await client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(1024, 1) }));
      };
      await begin('site-a/videos/vid-cut/video.mp4');
      await begin('site-a/videos/vid-other/video.mp4');
      await storage.putFile('vid-cut', 'thumbnail.jpg', localFile('t.jpg', 'jpeg bytes'));
      const unfinished = async () => ((await client.send(new ListMultipartUploadsCommand({ Bucket }))).Uploads ?? []).map((u) => u.Key);
      expect(await unfinished()).toHaveLength(2);
      await storage.removeVideo('vid-cut');
      expect(await storage.listVideo('vid-cut')).toEqual([]);
      expect(await unfinished()).toEqual(['site-a/videos/vid-other/video.mp4']);
    });

  it('answers null for what is missing and refuses keys outside the media pattern', async () => {
    expect(await storage.stat('videos/nope/video.mp4')).toBeNull();
    expect(await storage.readText('videos/nope/hls/master.m3u8')).toBeNull();
    await expect(storage.openRead('videos/nope/video.mp4')).rejects.toThrow();
    for (const bad of ['../etc/passwd', 'videos/a/../../x', 'videos/a/video.mp4/../x', 'other/a/video.mp4'])
      await expect(storage.stat(bad)).rejects.toThrow(/Invalid media key/);
    await expect(storage.putFile('../x', 'video.mp4', localFile('x.mp4', 'x'))).rejects.toThrow(/Invalid/);
  });

  it('ffprobe reads a stored video through ffmpegInput', async () => {
    const mp4 = await makeMp4(fixtures, 2);
    const copy = localFile('clip.mp4', fs.readFileSync(mp4));
    const { key } = await storage.putFile('vid-probe', 'video.mp4', copy);
    const input = await storage.ffmpegInput(key, 600);
    if (kind === 's3') expect(input).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Signature=/);
    const probed = await probeVideo(input);
    expect(probed.ok && probed.probe.durationSeconds).toBeGreaterThan(1.5);
  });

  it('a published ladder replaces the earlier one whole, and the scratch workspace goes', async () => {
    async function ladder(files: Record<string, string>): Promise<void> {
      const ws = await storage.hlsWorkspace('vid-hls');
      const staging = path.join(ws.dir, 'hls.tmp-1-1');
      for (const [name, text] of Object.entries(files)) {
        await fsp.mkdir(path.dirname(path.join(staging, name)), { recursive: true });
        await fsp.writeFile(path.join(staging, name), text);
      }
      if (ws.publish) await ws.publish(staging);
      else {
        // The local store's transcoder swaps folders itself (hlsTranscoder.ts).
        await fsp.rm(path.join(ws.dir, 'hls'), { recursive: true, force: true });
        await fsp.rename(staging, path.join(ws.dir, 'hls'));
      }
      await ws.done();
    }
    await ladder({ 'master.m3u8': 'first', '720p/index.m3u8': 'a', '720p/seg_00000.ts': 'x', '720p/seg_00001.ts': 'y' });
    await ladder({ 'master.m3u8': 'second', '360p/index.m3u8': 'b', '360p/seg_00000.ts': 'z', 'previews.vtt': 'WEBVTT' });
    expect(await storage.readText('videos/vid-hls/hls/master.m3u8')).toBe('second');
    expect(await storage.readText('videos/vid-hls/hls/previews.vtt')).toBe('WEBVTT');
    expect((await storage.listVideo('vid-hls')).sort()).toEqual([
      'videos/vid-hls/hls/360p/index.m3u8',
      'videos/vid-hls/hls/360p/seg_00000.ts',
      'videos/vid-hls/hls/master.m3u8',
      'videos/vid-hls/hls/previews.vtt',
    ]);
    if (kind === 's3') expect(filesUnder(dataDir)).toEqual([]);
  });
});

describe.runIf(TEST_S3)('S3 media store configuration [s3]', () => {
  let bucket: FreshBucket;
  beforeEach(async () => {
    bucket = await freshBucket();
  });
  afterEach(() => bucket.cleanup());

  it('a missing bucket and refused credentials are reported by the variable to fix', async () => {
    const dataDir = tmpDir('media-store-');
    try {
      const missing = s3MediaStorage(testEnv({ DATA_DIR: dataDir, ...bucket.env, MEDIA_STORE: `s3://${bucket.bucket}-missing` }));
      await expect(missing.check()).rejects.toThrow(MediaStoreError);
      await expect(missing.check()).rejects.toThrow(/^MEDIA_STORE: the bucket of s3:\/\/.*-missing\/ does not exist/);
      const refused = s3MediaStorage(testEnv({ DATA_DIR: dataDir, ...bucket.env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' }));
      await expect(refused.check()).rejects.toThrow(/^AWS_ACCESS_KEY_ID \/ AWS_SECRET_ACCESS_KEY: the object store refused/);
      const down = s3MediaStorage(testEnv({ DATA_DIR: dataDir, ...bucket.env, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9' }));
      await expect(down.check()).rejects.toThrow(/^AWS_ENDPOINT_URL_S3 \/ AWS_ENDPOINT_URL: the object store .* cannot be reached/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a server does not start on a missing bucket or refused credentials', async () => {
    await expect(startTestServer('sqlite', { env: { ...bucket.env, MEDIA_STORE: `s3://${bucket.bucket}-missing` } })).rejects.toThrow(
      /MEDIA_STORE: the bucket/,
    );
    await expect(startTestServer('sqlite', { env: { ...bucket.env, AWS_ACCESS_KEY_ID: 'NOBODY' } })).rejects.toThrow(
      /AWS_ACCESS_KEY_ID \/ AWS_SECRET_ACCESS_KEY/,
    );
  });
});
