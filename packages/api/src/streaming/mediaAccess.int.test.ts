/**
 * The attacker's requests for issue 27 findings 2 and 3, on the production configuration
 * (NODE_ENV=production, MEDIA_ACCEL=nginx behind Debian's nginx running the shipped template with
 * media on the local disk):
 *
 * - the quality cap on the progressive file: a monthly subscriber (cap 1080), an annual one (2160)
 *   and an approved member without a plan on a site capped at 360p, each asking for the stream of a
 *   video uploaded at 1440p, get bytes (sent by nginx) whose height is within their cap and that are
 *   not the upload; editing the URL's file or signature is refused;
 * - revocation: a subscriber holding a stream (progressive URL, master and media playlists, the
 *   first window's key and segments) is erased, or their subscription ends: once the re-check
 *   cache's 15 s pass (the test clock advanced) and nginx's decision cache runs out (the API lets
 *   nginx keep an allowed decision for ACCEL_DECISION_SECONDS at most, checked on its answer; the
 *   test waits for the refusal, bounded only to catch a hang) the progressive URL, both playlists
 *   and the next window's key answer 403, and the key fetched before does not decrypt the next
 *   window's segment;
 * - an entitled member's player still decodes the whole rotated-key stream (real ffmpeg over HTTP).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConf, standaloneNginxConf } from '../../../../deploy/render-nginx.mjs';
import { freePort } from '../../../../scripts/freePort.mjs';
import { apiClient, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { nginxAvailable } from '../../test/requirements.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { mediaBinaries } from '../media/ffmpeg.js';
import { makeSizedClip } from '../media/media.testkit.js';
import { eraseMember } from '../privacy/erasure.service.js';
import { modules } from '../wiring/modules.js';
import { ACCESS_RECHECK_SECONDS } from './accessRecheck.js';
import { ACCEL_DECISION_SECONDS } from './sendMedia.js';
import { signStreamPath } from './streamSignature.js';
import { createTestUser, grantPlanForTest, type TestViewer } from './viewers.testkit.js';

const run = promisify(execFile);
const fixtures = tmpDir('media-access-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const INVALID = 'This video link is not valid. Please open the video again.';
const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://members.example',
  MEDIA_ACCEL: 'nginx',
  MEDIA_ACCEL_PREFIX: '/_protected_media/',
  TRANSCODE_CONCURRENCY: '1',
  TRANSCODE_PRESET: 'ultrafast',
  ACCESS_TOKEN_TTL_SECONDS: String(30 * 24 * 3600),
};

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

async function waitTranscoded(server: TestServer, videoId: string): Promise<void> {
  for (;;) {
    const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
    if (row?.transcode_status === 'completed') return;
    expect(row?.transcode_status).not.toBe('failed');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function upload(server: TestServer, file: string, accessLevel: string, actorId: string): Promise<string> {
  const copy = path.join(fixtures, `${Math.random().toString(36).slice(2)}${path.extname(file)}`);
  fs.copyFileSync(file, copy);
  const r = await ingestVideoFile(server.ctx, { filePath: copy, title: `clip ${accessLevel}`, accessLevel, actorId });
  if (!r.ok) throw new Error(r.error.message);
  return r.videoId;
}

async function videoHeight(file: string): Promise<number> {
  const { stdout } = await run(mediaBinaries().ffprobe, [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=height',
    '-of',
    'json',
    file,
  ]);
  return Number(JSON.parse(stdout).streams[0].height);
}

/** Whether bytes are plain MPEG-TS: the sync byte 0x47 every 188 bytes. */
const isTs = (b: Buffer) => b.length >= 188 * 4 && [0, 188, 376, 564].every((o) => b[o] === 0x47);

/** AES-128-CBC decryption as a player does it (RFC 8216 §5.2), or null when the padding is not valid. */
function decrypt(key: Buffer, iv: Buffer, data: Buffer): Buffer | null {
  try {
    const d = createDecipheriv('aes-128-cbc', key, iv);
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    return null;
  }
}

/** The IV of media sequence number `n` (no IV attribute in the playlist). */
const ivOf = (n: number) => {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(n, 12);
  return iv;
};

describe.runIf(nginxAvailable())('media caps and revocation, production configuration behind nginx', () => {
  let server: TestServer;
  let nginx: ChildProcess;
  let prefix: string;
  let base: string;
  let admin: TestViewer;
  let tall: string;
  let tallFile: Buffer;
  let long: string;

  /** A URL the API handed out, reached through nginx (the API names PUBLIC_URL's origin). */
  const viaNginx = (url: string) => {
    const u = new URL(url, base);
    return `${base}${u.pathname}${u.search}`;
  };
  const streamOf = async (videoId: string, who: TestViewer) => {
    const r = await apiClient(base).get(`/videos/${videoId}/stream`, who.token);
    expect(r.status).toBe(200);
    return r.body.data as { streamUrl: string | null; hlsUrl: string; qualities: string[] };
  };

  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: PRODUCTION,
      // Members without a plan are capped at 360p on this site.
      site: { media: { maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 360 } },
    });
    // nginx's workers (another user when started as root) read the media files.
    fs.chmodSync(server.store.dataDir, 0o755);
    prefix = tmpDir('members-nginx-caps-');
    fs.mkdirSync(path.join(prefix, 'tmp'));
    fs.chmodSync(prefix, 0o755);
    const port = await freePort();
    const site = renderNginxConf({
      upstreams: [`127.0.0.1:${server.port}`],
      listen: `127.0.0.1:${port}`,
      cacheDir: path.join(prefix, 'cache'),
      mediaRoot: path.join(server.store.dataDir, 'media'),
      // The name this test reaches nginx by: any other Host is closed by the default server (444).
      serverName: '127.0.0.1',
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), standaloneNginxConf(prefix, site));
    let out = '';
    nginx = spawn('/usr/sbin/nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stdout?.on('data', (d) => (out += d));
    nginx.stderr?.on('data', (d) => (out += d));
    const errorLog = path.join(prefix, 'error.log');
    await waitListening(port, nginx, () => out + (fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8') : ''));
    base = `http://127.0.0.1:${port}`;

    admin = await createTestUser(server.ctx, { role: 'admin' });
    const tallClip = await makeSizedClip(fixtures, { width: 2560, height: 1440, seconds: 4, kbps: 600 });
    tallFile = fs.readFileSync(tallClip);
    tall = await upload(server, tallClip, 'free', admin.id);
    // 36 s in ~4 s segments: two key windows.
    long = await upload(server, await makeSizedClip(fixtures, { width: 320, height: 180, seconds: 36, kbps: 150 }), 'premium', admin.id);
    await waitTranscoded(server, tall);
    await waitTranscoded(server, long);
  }, 300_000);
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    await server?.close();
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  it('the progressive file never exceeds the cap: monthly 1080, annual 2160, no plan 360 (of a 1440p upload), sent by nginx', async () => {
    const monthly = await createTestUser(server.ctx);
    const annual = await createTestUser(server.ctx);
    const member = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, monthly.id, 'monthly');
    await grantPlanForTest(server.ctx, annual.id, 'annual');
    for (const [who, cap, expected] of [
      [monthly, 1080, 1080],
      [annual, 2160, 1440],
      [member, 360, 360],
    ] as const) {
      const { streamUrl } = await streamOf(tall, who);
      expect(streamUrl).not.toBeNull();
      const res = await fetch(viaNginx(streamUrl as string));
      expect([res.status, res.headers.get('x-media-served-by'), res.headers.get('content-type')]).toEqual([200, 'nginx', 'video/mp4']);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.equals(tallFile)).toBe(false);
      const file = path.join(fixtures, `got-${who.id}.mp4`);
      fs.writeFileSync(file, bytes);
      const height = await videoHeight(file);
      expect({ cap, height }).toEqual({ cap, height: expected });
      expect(height).toBeLessThanOrEqual(cap);
    }

    // Editing the URL: another file on the same signature, the original, or another signature.
    const signed = new URL(viaNginx((await streamOf(tall, monthly)).streamUrl as string));
    expect(signed.searchParams.get('r')).toBe('1080p');
    const edits: [string, (u: URL) => void][] = [
      ['a taller rendition', (u) => u.searchParams.set('r', '1440p')],
      ['the original', (u) => u.searchParams.set('r', 'original')],
      ['no file', (u) => u.searchParams.delete('r')],
      [
        'another signature',
        (u) => u.searchParams.set('s', `${u.searchParams.get('s')?.[0] === 'A' ? 'B' : 'A'}${u.searchParams.get('s')?.slice(1)}`),
      ],
    ];
    for (const [what, edit] of edits) {
      const u = new URL(signed);
      edit(u);
      const res = await fetch(u);
      expect({ what, status: res.status, nginx: res.headers.get('x-media-served-by') }).toEqual({ what, status: 403, nginx: null });
      expect(await res.json()).toEqual({ success: false, error: INVALID, code: 'stream.link_invalid' });
    }
    // Even a valid signature of the original for a member (only admins' streams name it) gets no byte.
    const original = signStreamPath(server.ctx, tall, member.id, 'original').path;
    const res = await fetch(`${base}${original}`);
    expect([res.status, res.headers.get('x-media-served-by')]).toEqual([403, null]);
  }, 120_000);

  it('a ladder transcoded before progressive files existed: no progressive URL for members, a 404 (not a 500) for an old one', async () => {
    const member = await createTestUser(server.ctx);
    const before = (await streamOf(tall, member)).streamUrl as string;
    const row = await server.ctx.db.get<{ hls: string }>('SELECT hls FROM videos WHERE id = ?', [tall]);
    const ladder = JSON.parse(row?.hls ?? '{}') as { renditions: { progressive?: boolean }[] };
    for (const r of ladder.renditions) delete r.progressive;
    await server.ctx.db.run('UPDATE videos SET hls = ? WHERE id = ?', [JSON.stringify(ladder), tall]);
    try {
      server.clock.advance((ACCESS_RECHECK_SECONDS + 1) * 1000);
      const now = await streamOf(tall, member);
      expect([now.streamUrl, now.hlsUrl === null]).toEqual([null, false]);
      const old = new URL(before, server.url);
      const res = await fetch(`${server.url}${old.pathname}${old.search}`);
      expect(res.status).toBe(404);
    } finally {
      await server.ctx.db.run('UPDATE videos SET hls = ? WHERE id = ?', [row?.hls, tall]);
    }
  });

  it('an entitled member decodes the whole rotated-key stream with ffmpeg over HTTP (through nginx)', async () => {
    const subscriber = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, subscriber.id, 'monthly');
    const { hlsUrl } = await streamOf(long, subscriber);
    const master = viaNginx(hlsUrl);
    const mediaUrl = new URL((await (await fetch(master)).text()).split('\n').find((l) => /^\d+p\//.test(l)) as string, master);
    const playlist = await (await fetch(mediaUrl)).text();
    expect(playlist.match(/#EXT-X-KEY:METHOD=AES-128,URI="[^"]+&w=\d+"/g)).toHaveLength(2);
    // Every frame of the 36 s (24 fps) decoded: each key window's key fetched and each segment decrypted.
    const { stdout } = await run(mediaBinaries().ffmpeg, ['-v', 'error', '-i', master, '-map', '0:v:0', '-f', 'framemd5', '-'], {
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const frames = stdout.split('\n').filter((l) => /^\s*0,/.test(l)).length;
    expect(frames).toBeGreaterThanOrEqual(35 * 24);
  }, 120_000);

  /** What a subscriber's player holds of the long premium video: URLs, the first window's key, a segment of each window. */
  async function holdStream(who: TestViewer) {
    const stream = await streamOf(long, who);
    const progressive = viaNginx(stream.streamUrl as string);
    const master = viaNginx(stream.hlsUrl);
    const masterRes = await fetch(master);
    expect(masterRes.status).toBe(200);
    const mediaUrl = new URL((await masterRes.text()).split('\n').find((l) => /^\d+p\//.test(l)) as string, master);
    const playlist = await (await fetch(mediaUrl)).text();
    const lines = playlist.split('\n');
    const keyUris = [...playlist.matchAll(/URI="([^"]+)"/g)].map((m) => new URL(m[1] as string, mediaUrl));
    const segments = lines.filter((l) => l.startsWith('../segments/')).map((l) => new URL(l, mediaUrl));
    const key0 = await fetch(keyUris[0] as URL);
    expect(key0.status).toBe(200);
    const firstKey = Buffer.from(await key0.arrayBuffer());
    // Segment 0 (window 0) and segment 7 (the first of window 1): shared files, fetched while allowed.
    const seg0 = Buffer.from(await (await fetch(segments[0] as URL)).arrayBuffer());
    const seg7 = Buffer.from(await (await fetch(segments[7] as URL)).arrayBuffer());
    const progressiveRes = await fetch(progressive, { headers: { range: 'bytes=0-99' } });
    expect([progressiveRes.status, progressiveRes.headers.get('x-media-served-by')]).toEqual([206, 'nginx']);
    // How long nginx may reuse this allowed decision is the API's to say (X-Accel-Expires): the bound
    // on how long a revoked viewer keeps getting bytes, whatever the machine's speed.
    const asked = new URL(progressive);
    const decision = await fetch(`${server.url}${asked.pathname}${asked.search}`, { headers: { range: 'bytes=0-99' } });
    expect(decision.status).toBe(200);
    const reuse = Number(decision.headers.get('x-accel-expires'));
    expect(reuse).toBeGreaterThan(0);
    expect(reuse).toBeLessThanOrEqual(ACCEL_DECISION_SECONDS);
    expect(isTs(decrypt(firstKey, ivOf(0), seg0) ?? Buffer.alloc(0))).toBe(true);
    return { progressive, master, mediaUrl, nextKey: keyUris[1] as URL, firstKey, seg7 };
  }

  /** After the revocation: every new byte refused (nginx's cached decision, at most ACCEL_DECISION_SECONDS, run out). */
  async function expectStopped(held: Awaited<ReturnType<typeof holdStream>>) {
    // The API's re-check cache (15 s) passes: the test clock moves on.
    server.clock.advance((ACCESS_RECHECK_SECONDS + 1) * 1000);
    for (const [what, url] of [
      ['master playlist', held.master],
      ['media playlist', held.mediaUrl.toString()],
      ['next window key', held.nextKey.toString()],
    ] as const) {
      const res = await fetch(url);
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
    }
    // The progressive file: asked of the API, refused now; through nginx, once its decision cache
    // (X-Accel-Expires, at most ACCEL_DECISION_SECONDS: holdStream checked the API's answer) runs out.
    // Until then nginx serves the cached decision's bytes, nothing else; the bound only catches a hang.
    const progressive = new URL(held.progressive);
    expect((await fetch(`${server.url}${progressive.pathname}${progressive.search}`, { headers: { range: 'bytes=0-99' } })).status).toBe(
      403,
    );
    const statuses: number[] = [];
    const hang = Date.now() + 90_000;
    while (statuses.at(-1) !== 403 && Date.now() < hang) {
      if (statuses.length) await new Promise((r) => setTimeout(r, 500));
      statuses.push((await fetch(held.progressive, { headers: { range: 'bytes=0-99' } })).status);
    }
    expect(statuses.at(-1)).toBe(403);
    expect(statuses.slice(0, -1).every((s) => s === 206)).toBe(true);
    // The key fetched before does not open the next window's segment.
    const opened = decrypt(held.firstKey, ivOf(7), held.seg7);
    expect(opened !== null && isTs(opened)).toBe(false);
  }

  it('an erased subscriber: playlists, the progressive file and the next key stop within the bound; the old key opens nothing new', async () => {
    const subscriber = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, subscriber.id, 'monthly');
    const held = await holdStream(subscriber);
    const erased = await eraseMember(
      server.ctx,
      modules,
      subscriber.id,
      { requestedBy: 'member', reason: null },
      { actorId: subscriber.id },
    );
    expect(erased.ok).toBe(true);
    await expectStopped(held);
  }, 150_000);

  it('a subscription that ended: the same', async () => {
    const subscriber = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, subscriber.id, 'monthly');
    const held = await holdStream(subscriber);
    // The read model as billing leaves it when a subscription expires (viewers.testkit.ts's shortcut, reversed).
    await server.ctx.db.run(`UPDATE users SET membership_status = 'expired', subscription_status = 'expired' WHERE id = ?`, [
      subscriber.id,
    ]);
    await expectStopped(held);
  }, 150_000);
});
