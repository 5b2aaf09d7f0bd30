/**
 * `pnpm cli media copy` on real files and a real S3 server (the tests' Ceph RGW), through the real
 * CLI (a child process): a site with two uploaded and transcoded videos on the local disk is copied
 * to a fresh bucket — a first run stopped by Ctrl-C (SIGINT) after its first object, a second
 * killed with SIGKILL after its first, the third finishing it and skipping what was done — every object arrives with identical bytes, and the
 * site restarted with MEDIA_STORE on that bucket (its local media removed) serves the videos. A
 * target object overwritten with other bytes is found and copied again; the copy back from the
 * bucket into an empty data directory is identical, and a corrupted file there is repaired the
 * same way. `backup --media` copies the bucket into a backup, and its restore on an object store
 * puts the media into a bucket. Bad arguments exit 2 with a message.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../../test/adminToken.js';
import { API_CLI_ARGS } from '../../../test/apiEntry.js';
import { childEnv, runCli } from '../../../test/childServer.js';
import { apiClient, startTestServer, type TestServer, tmpDir } from '../../../test/harness.js';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds, testS3Client } from '../../../test/s3.js';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../../streaming/viewers.testkit.js';
import { postUpload } from '../../uploads/upload.testkit.js';
import { mediaBinaries } from '../ffmpeg.js';
import { makeMp4 } from '../media.testkit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const fixtures = tmpDir('media-copy-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

/** Every file under `dir`, relative to it, with its bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!fs.existsSync(dir)) return out;
  for (const f of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const file = path.join(dir, f);
    if (fs.statSync(file).isFile()) out.set(f, fs.readFileSync(file));
  }
  return out;
}

async function objectBytes(bucket: string, key: string): Promise<Buffer> {
  const res = await testS3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await (res.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

/** The copy's own counts, from its summary line. */
function summaryOf(out: string): { copied: number; skipped: number; total: number } {
  const m = /Copied (\d+) objects \([^)]*\) and skipped (\d+) already at the target \([^)]*\) of (\d+)/.exec(out);
  if (!m) throw new Error(`no summary in:\n${out}`);
  return { copied: Number(m[1]), skipped: Number(m[2]), total: Number(m[3]) };
}

/** The CLI as a child process (node with tsx's loader, so a signal reaches the copy itself), sent `signal` after its first progress line. */
async function copyStoppedAfterFirstObject(
  env: Record<string, string>,
  args: string[],
  signal: 'SIGKILL' | 'SIGINT',
): Promise<{ out: string; exit: NodeJS.Signals | number | null }> {
  const child = spawn(process.execPath, [...API_CLI_ARGS, ...args], {
    cwd: ROOT,
    env: { ...childEnv(env), MEDIA_COPY_TEST_PAUSE_MS: '400' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  child.stderr.on('data', (d) => (out += d));
  let sent = false;
  child.stdout.on('data', (d) => {
    out += d;
    if (!sent && /^ {2}1\/\d+ objects/m.test(out)) {
      sent = true;
      child.kill(signal);
    }
  });
  const exit = await exited;
  return { out, exit };
}

const available = mediaKinds().includes('s3');

describe.runIf(available)('media copy between the local disk and a bucket [sqlite+s3]', () => {
  let server: TestServer;
  let bucket: FreshBucket;
  let viewer: TestViewer;
  const clips: Record<string, string> = {};
  let local = new Map<string, Buffer>();
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' } });
    bucket = await freshBucket();
    env = { ...server.store.env, ...bucket.env, MEDIA_STORE: 'local' } as Record<string, string>;
    viewer = await createTestUser(server.ctx);
    await grantActiveSubscriptionForTest(server.ctx, viewer.id);
    const token = await adminToken(server);
    for (const [title, seconds] of [
      ['First', 3],
      ['Second', 2],
    ] as const) {
      const clip = await makeMp4(fs.mkdtempSync(path.join(fixtures, 'clip-')), seconds);
      const r = await postUpload(server.url, token, { title, accessLevel: 'free' }, { video: clip });
      expect(r.status).toBe(201);
      clips[r.body.data.videoId] = clip;
    }
    for (const id of Object.keys(clips)) {
      for (;;) {
        const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [id]);
        if (row?.transcode_status === 'completed') break;
        expect(row?.transcode_status).not.toBe('failed');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    local = filesOf(path.join(server.store.dataDir, 'media', 'videos'));
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    await bucket?.cleanup();
  });

  it('a copy stopped by Ctrl-C, then one killed with SIGKILL, resumes on the next run, skipping what was done; every object arrives with identical bytes', async () => {
    // Originals, thumbnails, playlists, segments, sprites and the WebVTT map of both videos.
    expect(local.size).toBeGreaterThan(10);
    for (const id of Object.keys(clips)) {
      const names = [...local.keys()].filter((k) => k.startsWith(`${id}/`));
      expect(names).toEqual(
        expect.arrayContaining([`${id}/video.mp4`, `${id}/thumbnail.jpg`, `${id}/hls/master.m3u8`, `${id}/hls/previews.vtt`]),
      );
      expect(names.some((n) => /\/hls\/\d+p\/seg_\d{5}\.ts$/.test(n))).toBe(true);
      // Each rendition's progressive MP4 (what a member's streamUrl opens) travels with the ladder.
      expect(names.some((n) => /\/hls\/\d+p\/progressive\.mp4$/.test(n))).toBe(true);
    }
    const to = `s3://${bucket.bucket}`;
    // Ctrl-C: the copy stops after the objects in flight, says so, and exits 130.
    const ctrlC = await copyStoppedAfterFirstObject(env, ['media', 'copy', '--to', to, '--concurrency', '1'], 'SIGINT');
    expect(ctrlC.out).toContain(`Copying media from ${path.join(server.store.dataDir, 'media')} to ${to}/`);
    expect(ctrlC.out).toMatch(/Interrupted after \d+ of \d+ objects: run the same command again to resume/);
    expect(ctrlC.exit).toBe(130);
    const afterCtrlC = (await bucketKeys(bucket.bucket)).length;
    expect(afterCtrlC).toBeGreaterThan(0);
    // SIGKILL: nothing runs at all; the run resumed where Ctrl-C left it and gets a little further.
    const killed = await copyStoppedAfterFirstObject(env, ['media', 'copy', '--to', to, '--concurrency', '1'], 'SIGKILL');
    expect(killed.exit).toBe('SIGKILL');
    expect(killed.out).toMatch(/^ {2}1\/\d+ objects: 0 copied \(0\.0 MiB\), 1 already there/m);
    const partial = await bucketKeys(bucket.bucket);
    expect(partial.length).toBeGreaterThanOrEqual(afterCtrlC);
    expect(partial.length).toBeLessThan(local.size);

    const resumed = await runCli(env, ['media', 'copy', '--to', to]);
    expect(resumed.code).toBe(0);
    const s = summaryOf(resumed.out);
    expect(s.total).toBe(local.size);
    expect(s.skipped).toBeGreaterThanOrEqual(partial.length);
    expect(s.skipped).toBeGreaterThan(0);
    expect(s.copied + s.skipped).toBe(local.size);
    expect(resumed.out).toContain(`Next: set MEDIA_STORE=${to}`);

    expect(await bucketKeys(bucket.bucket)).toEqual([...local.keys()].map((k) => `videos/${k}`).sort());
    for (const [k, bytes] of local)
      expect({ k, same: (await objectBytes(bucket.bucket, `videos/${k}`)).equals(bytes) }).toEqual({ k, same: true });
    // The source is left as it was.
    expect(filesOf(path.join(server.store.dataDir, 'media', 'videos'))).toEqual(local);
  }, 180_000);

  it('the site restarted on the bucket, its local media removed, serves both videos (progressive and HLS)', async () => {
    fs.rmSync(path.join(server.store.dataDir, 'media', 'videos'), { recursive: true });
    server = await server.restart(bucket.env);
    for (const [id, clip] of Object.entries(clips)) {
      const r = await apiClient(server.url).get(`/videos/${id}/stream`, viewer.token);
      expect(r.status).toBe(200);
      // The member's progressive file: a rendition's MP4 from the bucket; the admin's: the original.
      expect((await fetch(new URL(r.body.data.streamUrl, server.url))).status).toBe(200);
      const original = (await apiClient(server.url).get(`/videos/${id}/stream`, await adminToken(server))).body.data.streamUrl;
      const progressive = await fetch(new URL(original, server.url));
      expect(progressive.status).toBe(200);
      expect(Buffer.from(await progressive.arrayBuffer()).equals(fs.readFileSync(clip))).toBe(true);
      const { stdout } = await promisify(execFile)(
        mediaBinaries().ffprobe,
        ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'json', `${server.url}${r.body.data.hlsUrl}`],
        { timeout: 120_000 },
      );
      expect(JSON.parse(stdout).streams.map((x: { codec_type: string }) => x.codec_type)).toContain('video');
    }
  }, 180_000);

  it('an object overwritten at the target with other bytes is copied again by the next run', async () => {
    const [victim] = [...local.keys()].filter((k) => k.endsWith('video.mp4'));
    const key = `videos/${victim}`;
    await testS3Client().send(
      new PutObjectCommand({ Bucket: bucket.bucket, Key: key, Body: Buffer.alloc(local.get(victim as string)?.length ?? 1, 7) }),
    );
    // The bucket is now the site's store: copy from a disk copy of the media back into it.
    const disk = tmpDir('media-copy-disk-');
    try {
      for (const [k, bytes] of local) {
        fs.mkdirSync(path.dirname(path.join(disk, 'media', 'videos', k)), { recursive: true });
        fs.writeFileSync(path.join(disk, 'media', 'videos', k), bytes);
      }
      const r = await runCli({ ...env, MEDIA_STORE: `s3://${bucket.bucket}` }, [
        'media',
        'copy',
        '--from',
        disk,
        '--to',
        `s3://${bucket.bucket}`,
      ]);
      expect(r.code).toBe(0);
      expect(summaryOf(r.out)).toEqual({ copied: 1, skipped: local.size - 1, total: local.size });
      expect((await objectBytes(bucket.bucket, key)).equals(local.get(victim as string) as Buffer)).toBe(true);
    } finally {
      fs.rmSync(disk, { recursive: true, force: true });
    }
  }, 120_000);

  it('copies back from the bucket into an empty data directory, identical; a corrupted file there is repaired by the next run', async () => {
    const back = tmpDir('media-copy-back-');
    try {
      const from = `s3://${bucket.bucket}`;
      const r = await runCli({ ...env, MEDIA_STORE: from }, ['media', 'copy', '--to', back]);
      expect(r.code).toBe(0);
      expect(summaryOf(r.out)).toEqual({ copied: local.size, skipped: 0, total: local.size });
      expect(r.out).toContain(`Next: run every process with MEDIA_STORE=local and DATA_DIR=${back}`);
      expect(filesOf(path.join(back, 'media', 'videos'))).toEqual(local);
      // Nothing left in the scratch area: every file went in by rename.
      expect(fs.readdirSync(path.join(back, 'media', 'incoming'))).toEqual([]);

      const seg = [...local.keys()].find((k) => k.endsWith('.ts')) as string;
      fs.writeFileSync(path.join(back, 'media', 'videos', seg), Buffer.alloc(local.get(seg)?.length ?? 1, 1));
      const again = await runCli({ ...env, MEDIA_STORE: from }, ['media', 'copy', '--to', back]);
      expect(again.code).toBe(0);
      expect(summaryOf(again.out)).toEqual({ copied: 1, skipped: local.size - 1, total: local.size });
      expect(filesOf(path.join(back, 'media', 'videos'))).toEqual(local);
    } finally {
      fs.rmSync(back, { recursive: true, force: true });
    }
  }, 120_000);

  it('backup --media copies the bucket into the backup; restore on an object store puts it into the bucket', async () => {
    const site = { ...server.store.env, ...bucket.env } as Record<string, string>;
    const dbOnly = tmpDir('media-copy-dbonly-');
    const backup = tmpDir('media-copy-backup-');
    const restored = tmpDir('media-copy-restored-');
    const other = await freshBucket();
    try {
      fs.rmSync(dbOnly, { recursive: true });
      const plain = await runCli(site, ['backup', dbOnly]);
      expect(plain.code).toBe(0);
      expect(plain.out).toContain('is not copied into this backup (add --media');
      expect(fs.existsSync(path.join(dbOnly, 'media', 'videos'))).toBe(false);

      fs.rmSync(backup, { recursive: true });
      const b = await runCli(site, ['backup', '--media', backup]);
      expect(b.code).toBe(0);
      expect(b.out).not.toContain('is not copied');
      expect(filesOf(path.join(backup, 'media', 'videos'))).toEqual(local);
      const manifest = JSON.parse(fs.readFileSync(path.join(backup, 'manifest.json'), 'utf8'));
      expect(manifest.media.length).toBe(local.size);
      expect(manifest.mediaFrom).toBe(`s3://${bucket.bucket}/`);

      fs.rmSync(restored, { recursive: true });
      const r = await runCli({ DATA_DIR: restored, ...other.env }, ['restore', backup]);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`${local.size} media files into s3://${other.bucket}/`);
      expect(await bucketKeys(other.bucket)).toEqual([...local.keys()].map((k) => `videos/${k}`).sort());
      for (const [k, bytes] of local)
        expect({ k, same: (await objectBytes(other.bucket, `videos/${k}`)).equals(bytes) }).toEqual({ k, same: true });
      expect(fs.existsSync(path.join(restored, 'media', 'videos'))).toBe(false);
    } finally {
      for (const d of [dbOnly, backup, restored]) fs.rmSync(d, { recursive: true, force: true });
      await other.cleanup();
    }
  }, 180_000);

  it('bad arguments and an unknown bucket exit 2 with a message, not a stack trace', async () => {
    for (const [args, message] of [
      [['media', 'copy'], '--to is missing'],
      [['media', 'copy', '--to', 's3://Not_A_Bucket'], 'not s3://BUCKET[/PREFIX]'],
      [['media', 'copy', '--to', 'ftp://example.net/x'], 'only s3://, local or a directory'],
      [['media', 'copy', '--to', 's3://no-such-bucket-here'], 'the bucket of s3://no-such-bucket-here/ does not exist'],
      [['media', 'copy', '--to', 'local'], 'are the same place'],
    ] as const) {
      const r = await runCli(env, [...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.out).toContain(message);
      expect(r.out).not.toMatch(/\n\s+at /);
    }
  }, 120_000);
});
