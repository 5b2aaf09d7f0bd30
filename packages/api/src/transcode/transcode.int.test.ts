/**
 * The HLS pipeline end to end with real ffmpeg: an uploaded 10 s 1920×1080 clip is queued, transcoded
 * by the leader's worker into 1080p/720p/480p/360p, and ffprobe plays the master playlist over HTTP
 * with a valid signature (fetching the AES key and the encrypted segments) and fails without one;
 * keys and segments are refused to anyone not allowed; a 4K source gives annual subscribers a 2160p
 * rendition monthly ones never see; a transcode interrupted by a restart completes by itself; a failed
 * one records ffmpeg's message and can be retried.
 */
import { execFile } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { backupSite } from '../backup/siteBackup';
import { ingestVideoFile } from '../catalog/ingest';
import { mediaBinaries } from '../media/ffmpeg';
import { makeSizedClip } from '../media/media.testkit';
import { signKeyToken } from '../streaming/hlsSignature';
import { createTestUser, grantActiveSubscriptionForTest, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit';

const run = promisify(execFile);
const fixtures = tmpDir('transcode-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const TRANSCODING = { TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast', ACCESS_TOKEN_TTL_SECONDS: String(30 * 24 * 3600) };
const INVALID = 'This video link is not valid. Please open the video again.';
/** A MAC with its first character changed: always a different one ("…AA" for the last two would be no change when it ends so). */
const otherFirstChar = (mac: string) => `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;

async function ffprobeJson(
  url: string,
): Promise<{ ok: true; streams: { codec_type: string; width?: number; height?: number }[] } | { ok: false; error: string }> {
  try {
    const { stdout } = await run(
      mediaBinaries().ffprobe,
      ['-v', 'error', '-show_entries', 'stream=codec_type,width,height', '-of', 'json', url],
      {
        timeout: 120_000,
      },
    );
    return { ok: true, streams: JSON.parse(stdout).streams };
  } catch (err) {
    return { ok: false, error: String((err as { stderr?: string }).stderr ?? err) };
  }
}

async function eventsOf(server: TestServer, videoId: string) {
  return (await server.ctx.store.readStream(`transcode-${videoId}`)).map((e) => ({
    type: e.type,
    data: e.data as Record<string, unknown>,
  }));
}

/** Waits (without a time assertion: vitest's timeout is the limit) until the video's transcode status is one of `states`. */
async function waitForStatus(server: TestServer, videoId: string, states: string[]): Promise<string> {
  for (;;) {
    const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
    if (row && states.includes(row.transcode_status)) return row.transcode_status;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function upload(server: TestServer, file: string, actorId: string, accessLevel = 'premium'): Promise<string> {
  const copy = path.join(fixtures, `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${path.extname(file)}`);
  fs.copyFileSync(file, copy);
  const r = await ingestVideoFile(server.ctx, { filePath: copy, title: `clip ${path.basename(file)}`, accessLevel, actorId });
  if (!r.ok) throw new Error(r.error.message);
  return r.videoId;
}

forEachStore('HLS transcode', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let admin: TestViewer;
  let subscriber: TestViewer;
  let member: TestViewer;
  let videoId: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: TRANSCODING });
    api = apiClient(server.url);
    admin = await createTestUser(server.ctx, { role: 'admin' });
    subscriber = await createTestUser(server.ctx);
    member = await createTestUser(server.ctx);
    await grantActiveSubscriptionForTest(server.ctx, subscriber.id);
    videoId = await upload(server, await makeSizedClip(fixtures, { width: 1920, height: 1080, seconds: 10 }), admin.id);
  });
  afterAll(() => server?.close());

  it('an upload is queued, transcoded into four renditions, with progress events', async () => {
    expect(await waitForStatus(server, videoId, ['completed', 'failed'])).toBe('completed');
    const events = await eventsOf(server, videoId);
    expect(events[0]).toMatchObject({ type: 'TranscodeStarted', data: { attempt: 1, renditions: ['1080p', '720p', '480p', '360p'] } });
    expect(events.filter((e) => e.type === 'TranscodeProgressed').length).toBeGreaterThan(0);
    const completed = events.at(-1);
    expect(completed?.type).toBe('TranscodeCompleted');
    const renditions = completed?.data.renditions as { name: string; width: number; height: number }[];
    expect(renditions.map((r) => `${r.name} ${r.width}x${r.height}`)).toEqual([
      '1080p 1920x1080',
      '720p 1280x720',
      '480p 854x480',
      '360p 640x360',
    ]);
    const admin2 = await api.get(`/admin/videos/${videoId}`, admin.token);
    expect(admin2.body.data.transcode).toEqual({ status: 'completed', progress: 100, error: null });
    expect((await api.get(`/videos/${videoId}`)).body.data.qualities).toEqual(['1080p', '720p', '480p', '360p']);
    const folder = path.join(server.store.dataDir, 'media', 'videos', videoId, 'hls');
    expect(fs.readdirSync(folder).sort()).toEqual(['1080p', '360p', '480p', '720p', 'master.m3u8', 'previews.vtt', 'sprites']);
    // Each rendition has its progressive MP4 beside its segments (recorded in the event).
    for (const r of renditions) expect(fs.existsSync(path.join(folder, r.name, 'progressive.mp4'))).toBe(true);
    expect(completed?.data.renditions).toEqual(renditions.map(() => expect.objectContaining({ progressive: true })));
    expect(fs.readdirSync(path.join(server.store.dataDir, 'media', 'videos', videoId)).filter((n) => n.startsWith('hls.'))).toEqual([]);
  }, 300_000);

  it('ffprobe reads the signed master playlist over HTTP (key and encrypted segments included), and nothing without the signature', async () => {
    const stream = await api.get(`/videos/${videoId}/stream`, subscriber.token);
    expect(stream.status).toBe(200);
    // The progressive fallback: the tallest rendition within the subscriber's cap (1080), not the upload.
    expect(stream.body.data.streamUrl).toMatch(/\/api\/media\/videos\/.*[?&]r=1080p&/);
    expect(stream.body.data.qualities).toEqual(['1080p', '720p', '480p', '360p']);
    const hlsUrl = new URL(stream.body.data.hlsUrl, server.url);
    const probe = await ffprobeJson(hlsUrl.toString());
    expect(probe.ok).toBe(true);
    const heights = probe.ok ? probe.streams.filter((s) => s.codec_type === 'video').map((s) => s.height) : [];
    // A monthly-or-default subscriber on a premium video: up to 1080p.
    expect(heights.sort((a, b) => Number(b) - Number(a))).toEqual([1080, 720, 480, 360]);

    const unsigned = new URL(hlsUrl);
    unsigned.search = '';
    expect((await ffprobeJson(unsigned.toString())).ok).toBe(false);
    const res = await fetch(unsigned);
    expect([res.status, await res.json()]).toEqual([403, { success: false, error: INVALID, code: 'stream.link_invalid' }]);
  });

  it('segments and keys: encrypted on disk, refused without a valid signature or token, the key only to an allowed viewer', async () => {
    const stream = (await api.get(`/videos/${videoId}/stream`, subscriber.token)).body.data;
    const hlsUrl = new URL(stream.hlsUrl, server.url);
    const master = await (await fetch(hlsUrl)).text();
    const mediaUrl = new URL(master.split('\n').find((l: string) => l.startsWith('720p/')) as string, hlsUrl);
    const playlist = await fetch(mediaUrl);
    expect(playlist.headers.get('cache-control')).toBe('private, no-store');
    const text = await playlist.text();
    const keyUri = /URI="([^"]+)"/.exec(text)?.[1] as string;
    expect(new URL(keyUri, mediaUrl).searchParams.get('w')).toBe('0');
    // No IV attribute: the segment's media sequence number is its IV (RFC 8216 §5.2); the first is 0.
    expect(text).not.toMatch(/IV=0x/);
    const iv = Buffer.alloc(16);
    const segUrl = new URL(text.split('\n').find((l) => l.startsWith('../segments/')) as string, mediaUrl);
    const keyUrl = new URL(keyUri, mediaUrl);

    const key = await fetch(keyUrl);
    expect(key.status).toBe(200);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const keyBytes = Buffer.from(await key.arrayBuffer());
    expect(keyBytes.length).toBe(16);

    const seg = Buffer.from(await (await fetch(segUrl)).arrayBuffer());
    const syncBytes = (b: Buffer) => [0, 188, 376, 564].filter((o) => b[o] === 0x47).length;
    expect(syncBytes(seg)).toBeLessThan(4); // not plain MPEG-TS
    const decipher = createDecipheriv('aes-128-cbc', keyBytes, iv);
    expect(syncBytes(Buffer.concat([decipher.update(seg), decipher.final()]))).toBe(4);

    // Without a valid signature or token: refused, no byte.
    const refused: URL[] = [];
    for (const p of ['s', 'u', 'e', 'm']) {
      const u = new URL(segUrl);
      u.searchParams.set(p, p === 's' ? otherFirstChar(u.searchParams.get('s') ?? '') : p === 'u' ? member.id : '4320');
      refused.push(u);
    }
    const bare = new URL(segUrl);
    bare.search = '';
    refused.push(bare);
    const noToken = new URL(keyUrl);
    noToken.searchParams.delete('t');
    const forged = new URL(keyUrl);
    forged.searchParams.set('t', otherFirstChar(forged.searchParams.get('t') ?? ''));
    const otherUser = new URL(keyUrl);
    otherUser.searchParams.set('u', member.id);
    refused.push(noToken, forged, otherUser);
    // The rendition above the grant (the subscriber's m=1080 signature does not cover 2160p or a made-up rung).
    refused.push(new URL(mediaUrl.toString().replace('/720p/', '/2160p/')));
    for (const u of refused) {
      const r = await fetch(u);
      expect([u.pathname, r.status]).toEqual([u.pathname, 403]);
      expect(r.headers.get('content-type')).toContain('application/json');
    }
    // The media folder is never reachable by another path.
    expect((await fetch(`${server.url}/api/hls/${videoId}/key.info${segUrl.search}`)).status).toBe(404);

    // A member whose access decision refuses the video gets no key, even with a token signed for them.
    const memberKey = await fetch(
      `${server.url}/api/hls/${videoId}/key?${signKeyToken(server.ctx, videoId, member.id, Math.floor(server.clock.now().getTime() / 1000) + 600)}&w=0`,
    );
    expect([memberKey.status, ((await memberKey.json()) as { error: string }).error]).toEqual([
      403,
      'Active subscription required to view premium content',
    ]);
    // And the key token expires with the playlist's grant.
    server.clock.advance((server.ctx.env.STREAM_URL_TTL_SECONDS + 1) * 1000);
    const late = await fetch(keyUrl);
    expect([late.status, ((await late.json()) as { error: string }).error]).toEqual([
      403,
      'This video link has expired. Please open the video again.',
    ]);
  });

  it('the seek previews: a WebVTT of signed sprite tiles', async () => {
    const stream = (await api.get(`/videos/${videoId}/stream`, subscriber.token)).body.data;
    const previewsUrl = new URL(stream.previewsUrl, server.url);
    const vtt = await (await fetch(previewsUrl)).text();
    expect(vtt.startsWith('WEBVTT')).toBe(true);
    const cue = /^(sprites\/sprite-001\.jpg\?[^#\s]+)#xywh=0,0,160,90$/m.exec(vtt);
    expect(cue).not.toBeNull();
    const sprite = await fetch(new URL(cue?.[1] as string, previewsUrl));
    expect([sprite.status, sprite.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    expect((await fetch(new URL('sprites/sprite-001.jpg', previewsUrl))).status).toBe(403);
  });

  it('a backup carries the ladder with the video (and the key with the store)', async () => {
    const target = path.join(tmpDir('transcode-backup-'), 'backup');
    try {
      const manifest = await backupSite({ dataDir: server.store.dataDir, databaseUrl: server.store.env.DATABASE_URL }, target);
      const ours = manifest.media.map((f) => f.path).filter((p) => p.startsWith(`videos/${videoId}/`));
      expect(ours).toContain(`videos/${videoId}/hls/master.m3u8`);
      expect(ours).toContain(`videos/${videoId}/hls/720p/seg_00000.ts`);
      expect(ours).toContain(`videos/${videoId}/hls/720p/progressive.mp4`);
      expect(ours).toContain(`videos/${videoId}/hls/sprites/sprite-001.jpg`);
      expect(ours.filter((p) => p.includes('hls.tmp-'))).toEqual([]);
    } finally {
      fs.rmSync(path.dirname(target), { recursive: true, force: true });
    }
  });

  it('a transcode interrupted by a restart starts again by itself and completes', async () => {
    // Attempt 1 must still be running when the server stops, on any machine: its source is swapped
    // for a FIFO that this test holds open without writing, so ffmpeg waits for input until killed.
    server = await server.restart({ ...TRANSCODING, TRANSCODE_CONCURRENCY: '0' });
    const id = await upload(server, await makeSizedClip(fixtures, { width: 1280, height: 720, seconds: 4 }), admin.id);
    const source = path.join(server.store.dataDir, 'media', 'videos', id, 'video.mp4');
    const real = `${source}.real`;
    fs.renameSync(source, real);
    await run('mkfifo', [source]);
    server = await server.restart(TRANSCODING);
    // Opening a FIFO for writing without blocking succeeds only once a reader (ffmpeg) has it open.
    let writer: number | undefined;
    while (writer === undefined) {
      try {
        writer = fs.openSync(source, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    try {
      expect((await eventsOf(server, id)).map((e) => e.type)).toEqual(['TranscodeStarted']);
      fs.renameSync(real, source); // the restarted attempt reads the real file
      server = await server.restart(TRANSCODING);
    } finally {
      fs.closeSync(writer);
    }
    api = apiClient(server.url);
    expect(await waitForStatus(server, id, ['completed', 'failed'])).toBe('completed');
    const events = await eventsOf(server, id);
    const started = events.filter((e) => e.type === 'TranscodeStarted').map((e) => e.data.attempt);
    const completed = events.filter((e) => e.type === 'TranscodeCompleted');
    expect(completed).toHaveLength(1);
    // The stop killed attempt 1's ffmpeg; the restarted leader queued the job again and attempt 2 completed.
    expect(started).toEqual([1, 2]);
    expect(completed[0]?.data.attempt).toBe(2);
    expect(events.some((e) => e.type === 'TranscodeFailed')).toBe(false);
    expect((completed[0]?.data.renditions as { name: string }[] | undefined)?.map((r) => r.name)).toEqual(['720p', '480p', '360p']);
  }, 300_000);

  it("a failed transcode records ffmpeg's message, and an admin can retry it", async () => {
    server = await server.restart({ ...TRANSCODING, TRANSCODE_CONCURRENCY: '0' });
    api = apiClient(server.url);
    const id = await upload(server, await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 4 }), admin.id);
    const source = path.join(server.store.dataDir, 'media', 'videos', id, 'video.mp4');
    const original = fs.readFileSync(source);
    fs.writeFileSync(source, original.subarray(0, 2000)); // a truncated file ffmpeg cannot decode
    server = await server.restart(TRANSCODING);
    api = apiClient(server.url);
    expect(await waitForStatus(server, id, ['completed', 'failed'])).toBe('failed');
    const failed = (await api.get(`/admin/videos/${id}`, admin.token)).body.data.transcode;
    expect(failed.status).toBe('failed');
    expect(failed.error.length).toBeGreaterThan(10);
    expect((await eventsOf(server, id)).at(-1)).toMatchObject({ type: 'TranscodeFailed', data: { attempt: 1 } });

    // Members cannot retry; a retry of something not failed is a conflict.
    expect((await api.post(`/admin/videos/${id}/transcode/retry`, {}, subscriber.token)).status).toBe(403);
    expect((await api.post(`/admin/videos/${videoId}/transcode/retry`, {}, admin.token)).status).toBe(409);
    expect((await api.post('/admin/videos/no-such-video/transcode/retry', {}, admin.token)).status).toBe(404);
    fs.writeFileSync(source, original);
    const retried = await api.post(`/admin/videos/${id}/transcode/retry`, {}, admin.token);
    expect([retried.status, retried.body.data]).toEqual([200, { videoId: id, status: 'queued' }]);
    expect(await waitForStatus(server, id, ['completed', 'failed'])).toBe('completed');
    const types = (await eventsOf(server, id)).map((e) => e.type).filter((t) => t !== 'TranscodeProgressed');
    expect(types).toEqual(['TranscodeStarted', 'TranscodeFailed', 'TranscodeRetried', 'TranscodeStarted', 'TranscodeCompleted']);
  }, 300_000);
});

describe('entitlement per rendition with a 4K source', () => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: TRANSCODING });
    api = apiClient(server.url);
  });
  afterAll(() => server?.close());

  it('annual subscribers get the 2160p rendition; monthly ones, members on free videos and forged grants do not', async () => {
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    const monthly = await createTestUser(server.ctx);
    const annual = await createTestUser(server.ctx);
    const member = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, monthly.id, 'monthly');
    await grantPlanForTest(server.ctx, annual.id, 'annual');
    const clip = await makeSizedClip(fixtures, { width: 3840, height: 2160, seconds: 2, kbps: 800 });
    const premium = await upload(server, clip, admin.id, 'premium');
    expect(await waitForStatus(server, premium, ['completed', 'failed'])).toBe('completed');
    expect((await api.get(`/videos/${premium}`)).body.data.qualities).toEqual(['2160p', '1080p', '720p', '480p', '360p']);

    const masterOf = async (id: string, token: string) => {
      const s = (await api.get(`/videos/${id}/stream`, token)).body.data;
      const url = `${server.url}${s.hlsUrl}`;
      const text = await (await fetch(url)).text();
      return { qualities: s.qualities, listed: [...text.matchAll(/^(\d+p)\/index\.m3u8/gm)].map((m) => m[1]), url };
    };
    const a = await masterOf(premium, annual.token);
    expect(a.listed).toEqual(['2160p', '1080p', '720p', '480p', '360p']);
    expect(a.listed).toEqual(a.qualities);
    const m = await masterOf(premium, monthly.token);
    expect(m.listed).toEqual(['1080p', '720p', '480p', '360p']);

    // The monthly grant does not open the 4K playlist, nor does raising `m` without a new signature.
    const monthly4k = new URL(m.url.replace('master.m3u8', '2160p/index.m3u8'));
    expect((await fetch(monthly4k)).status).toBe(403);
    monthly4k.searchParams.set('m', '2160');
    expect((await fetch(monthly4k)).status).toBe(403);
    const annual4k = new URL(a.url.replace('master.m3u8', '2160p/index.m3u8'));
    expect((await fetch(annual4k)).status).toBe(200);
    const probe = await ffprobeJson(a.url);
    expect(probe.ok && probe.streams.some((s) => s.height === 2160)).toBe(true);

    // Made free: an approved member without a subscription gets up to 720p, an annual subscriber still 4K.
    expect((await api.put(`/admin/videos/${premium}`, { accessLevel: 'free' }, admin.token)).status).toBe(200);
    expect((await masterOf(premium, member.token)).listed).toEqual(['720p', '480p', '360p']);
    expect((await masterOf(premium, annual.token)).listed).toContain('2160p');
    expect((await masterOf(premium, monthly.token)).listed).toEqual(['1080p', '720p', '480p', '360p']);
  }, 300_000);
});
