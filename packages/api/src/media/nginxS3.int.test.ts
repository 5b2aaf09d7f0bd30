/**
 * Media from the object store without Node in the byte path: an API server on the tests' Ceph RGW
 * with MEDIA_ACCEL=nginx behind Debian's nginx running the shipped deploy/nginx.s3.conf (the template rendered with --media-store s3). The
 * API decides (signed URL, live video) and answers X-Accel-Redirect to a presigned URL; nginx
 * fetches the object from the gateway itself, byte ranges included. The internal location is not
 * reachable from outside, and a refused request gets the API's own answer, no byte. Encrypted HLS
 * segments are marked for shared caches and a second viewer's come from nginx's cache; keys and
 * per-viewer playlists are never cached.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConf, standaloneNginxConf } from '../../../../deploy/render-nginx.mjs';
import { freePort } from '../../../../scripts/freePort.mjs';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, type TestServer, tmpDir } from '../../test/harness.js';
import { NGINX, nginxAvailable } from '../../test/requirements.js';
import { type FreshBucket, mediaKinds } from '../../test/s3.js';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { postUpload } from '../uploads/upload.testkit.js';
import { makeMp4 } from './media.testkit.js';
import type { Relay } from './relay.testkit.js';
import { type ServerBehindRelay, serverBehindRelay } from './storeRelay.testkit.js';

const fixtures = tmpDir('nginx-s3-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

async function waitListening(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not listen: ${log()}`);
}

describe.runIf(mediaKinds().includes('s3') && nginxAvailable())('media from the object store sent by nginx [s3]', () => {
  let bucket: FreshBucket;
  let server: TestServer;
  let nginx: ChildProcess;
  let prefix: string;
  let base: string;
  let viewer: TestViewer;
  let second: TestViewer;
  let clip: Buffer;
  let videoId: string;
  let link: Relay;
  let setup: ServerBehindRelay | undefined;

  beforeAll(async () => {
    // The store is reached through a relay that counts what it sends (nginx fetches from the
    // endpoint the API presigns for).
    setup = await serverBehindRelay({ env: { MEDIA_ACCEL: 'nginx', TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' } });
    ({ bucket, link, server } = setup);
    prefix = tmpDir('members-nginx-s3-');
    fs.mkdirSync(path.join(prefix, 'tmp'));
    fs.chmodSync(prefix, 0o755);
    const port = await freePort();
    // The shipped configuration for media in an object store (deploy/nginx.s3.conf), on this test's ports.
    const site = renderNginxConf({
      mediaStore: 's3',
      upstreams: [`127.0.0.1:${server.port}`],
      listen: `127.0.0.1:${port}`,
      serverName: '127.0.0.1',
      cacheDir: path.join(prefix, 'cache'),
      resolver: '127.0.0.1',
      maxBody: '100m',
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), standaloneNginxConf(prefix, site));
    let out = '';
    nginx = spawn(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stdout?.on('data', (d) => (out += d));
    nginx.stderr?.on('data', (d) => (out += d));
    await waitListening(
      port,
      nginx,
      () => out + (fs.existsSync(path.join(prefix, 'error.log')) ? fs.readFileSync(path.join(prefix, 'error.log'), 'utf8') : ''),
    );
    base = `http://127.0.0.1:${port}`;

    const file = await makeMp4(fixtures, 3);
    clip = fs.readFileSync(file);
    const up = await postUpload(base, await adminToken(server), { title: 'From the bucket', accessLevel: 'free' }, { video: file });
    expect(up.status).toBe(201);
    videoId = up.body.data.videoId;
    viewer = await createTestUser(server.ctx);
    await grantActiveSubscriptionForTest(server.ctx, viewer.id);
    second = await createTestUser(server.ctx);
    await grantActiveSubscriptionForTest(server.ctx, second.id);
  }, 120_000);
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    await setup?.close();
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  it('sends the whole video and byte ranges from the object store, after the API decided', async () => {
    // The original: an admin's progressive file (members get a rendition within their cap).
    const stream = await apiClient(base).get(`/videos/${videoId}/stream`, await adminToken(server));
    expect(stream.status).toBe(200);
    const url = new URL(stream.body.data.streamUrl, base);
    const signed = `${base}${url.pathname}${url.search}`;

    const whole = await fetch(signed);
    expect([whole.status, whole.headers.get('x-media-served-by'), whole.headers.get('content-type')]).toEqual([
      200,
      'nginx-s3',
      'video/mp4',
    ]);
    expect(whole.headers.get('cache-control')).toBe('private, no-transform');
    expect(whole.headers.get('x-amz-request-id')).toBeNull();
    expect(Buffer.from(await whole.arrayBuffer()).equals(clip)).toBe(true);

    // A range costs the store that range, not the whole object (a seek in a 1 GB original).
    const before = link.traffic().down;
    const part = await fetch(signed, { headers: { Range: 'bytes=100-1099' } });
    expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 100-1099/${clip.length}`]);
    expect(Buffer.from(await part.arrayBuffer()).equals(clip.subarray(100, 1100))).toBe(true);
    expect(clip.length).toBeGreaterThan(20_000);
    expect(link.traffic().down - before).toBeLessThan(1000 + 4000);
  });

  it('refuses a tampered link with the API answer and keeps the internal location internal', async () => {
    const stream = await apiClient(base).get(`/videos/${videoId}/stream`, await adminToken(server));
    const url = new URL(stream.body.data.streamUrl, base);
    url.searchParams.set('e', String(Number(url.searchParams.get('e')) + 1));
    const tampered = await fetch(`${base}${url.pathname}${url.search}`);
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get('x-media-served-by')).toBeNull();
    const direct = await fetch(
      `${base}/_protected_media/http/${new URL(bucket.env.AWS_ENDPOINT_URL_S3 as string).host}/${bucket.bucket}/videos/${videoId}/video.mp4`,
    );
    expect(direct.status).toBe(404);
  });

  /** The first segment of the 360p rendition, through nginx, as `who` gets it. */
  async function firstSegment(who: TestViewer) {
    const stream = await apiClient(base).get(`/videos/${videoId}/stream`, who.token);
    const hls = new URL(stream.body.data.hlsUrl, base);
    const master = new URL(`${base}${hls.pathname}${hls.search}`);
    const masterText = await (await fetch(master)).text();
    const media = new URL(masterText.split('\n').find((l) => /^\d+p\//.test(l)) as string, master);
    const playlist = await fetch(media);
    const text = await playlist.text();
    const segment = await fetch(new URL(text.split('\n').find((l) => l.startsWith('../segments/')) as string, media));
    const key = await fetch(new URL(/URI="([^"]+)"/.exec(text)?.[1] as string, media));
    return { segment, playlist, key, url: segment.url };
  }

  it("encrypted segments are shared by nginx's cache between viewers; keys and playlists never", async () => {
    for (;;) {
      const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
      if (row?.transcode_status === 'completed') break;
      expect(row?.transcode_status).not.toBe('failed');
      await new Promise((r) => setTimeout(r, 250));
    }
    const first = await firstSegment(viewer);
    const again = await firstSegment(second);
    expect(first.url).not.toBe(again.url); // each viewer's own signed URL
    expect([first.segment.status, first.segment.headers.get('x-media-served-by'), first.segment.headers.get('x-cache-status')]).toEqual([
      200,
      'nginx-s3',
      'MISS',
    ]);
    expect([again.segment.status, again.segment.headers.get('x-cache-status')]).toEqual([200, 'HIT']);
    expect(first.segment.headers.get('cache-control')).toBe('public, max-age=3600, no-transform');
    expect(Buffer.from(await first.segment.arrayBuffer()).equals(Buffer.from(await again.segment.arrayBuffer()))).toBe(true);
    for (const r of [first, again]) {
      expect(r.playlist.headers.get('cache-control')).toBe('private, no-store');
      expect([r.key.status, r.key.headers.get('cache-control'), r.key.headers.get('x-cache-status')]).toEqual([200, 'no-store', null]);
    }
  }, 180_000);
});
