/**
 * Live shows end to end (issue 43), with real ffmpeg on both sides: the test pushes what OBS sends
 * (`ffmpeg -re … -f flv rtmp://…/live/KEY`, 360p, a fast preset) to the embedded RTMP ingest; the
 * API checks the key, makes the two-rendition encrypted live ladder, and members play it under the
 * spec §4 decision. Then the push stops: the show ends and the replay is an unpublished library video.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { mediaBinaries } from '../media/index';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit';
import { freePort, LIVE_TEST_SITE, pushRtmp, until } from './live.testkit';
import { endShow, startShow } from './shows.service';

const work = tmpDir('live-int-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The push's exit code, or null while it still runs after `ms`. */
async function exitWithin(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const closed = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
  return Promise.race([closed, sleep(ms).then(() => null)]);
}

forEachStore('live shows', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let rtmp: string;
  let admin: TestViewer;
  let annual: TestViewer;
  let monthly: TestViewer;
  let noPlan: TestViewer;

  beforeAll(async () => {
    const port = await freePort();
    rtmp = `rtmp://127.0.0.1:${port}/live`;
    server = await startTestServer(kind, { env: { LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' }, site: LIVE_TEST_SITE });
    api = apiClient(server.url);
    admin = await createTestUser(server.ctx, { role: 'admin' });
    annual = await createTestUser(server.ctx);
    monthly = await createTestUser(server.ctx);
    noPlan = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, annual.id, 'annual');
    await grantPlanForTest(server.ctx, monthly.id, 'monthly');
  });
  afterAll(() => server?.close());

  const schedule = async (title: string, saveReplay: boolean) => {
    const res = await api.call('POST', '/admin/live/shows', {
      token: admin.token,
      body: { title, accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay },
    });
    expect(res.status).toBe(201);
    return res.body.data.show as { id: string; status: string; ingestUrl: string; streamKey: string };
  };
  const statusOf = async (showId: string, token = annual.token) => {
    const res = await api.call('GET', '/live/shows', { token });
    return (res.body.data.shows as { id: string; status: string; mayWatch: boolean }[]).find((s) => s.id === showId);
  };
  const get = (url: string) => fetch(new URL(url, server.url));

  it('schedules a show with its OBS server and a key shown once; members see it and whether they may watch', async () => {
    const show = await schedule('Friday night live', false);
    expect(show).toMatchObject({ status: 'scheduled', ingestUrl: expect.stringMatching(/^rtmp:\/\//) });
    expect(show.streamKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await statusOf(show.id)).toMatchObject({ status: 'scheduled', mayWatch: true });
    expect(await statusOf(show.id, noPlan.token)).toMatchObject({ status: 'scheduled', mayWatch: false });
    // The key is not kept: nothing the read model or the log holds is the key.
    const row = await server.ctx.db.get<{ key_hash: string }>('SELECT key_hash FROM live_shows WHERE id = ?', [show.id]);
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await server.ctx.db.all('SELECT * FROM live_shows'))).not.toContain(show.streamKey);
    // Before the show: no playlist, the player's words.
    const before = await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token });
    expect(before.body.data).toMatchObject({ status: 'scheduled', hlsUrl: null, message: 'The show has not started' });
  });

  it('live before its first segments are written: no playlist yet, "The show is starting", and no player answered 404', async () => {
    const show = await schedule('Starting', false);
    expect((await startShow(server.ctx, show.id, show.streamKey, [{ name: '240p', width: 426, height: 240, bandwidth: 500_000 }])).ok).toBe(
      true,
    );
    const starting = await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token });
    expect(starting.body.data).toMatchObject({ status: 'live', hlsUrl: null, qualities: ['240p'], message: 'The show is starting' });
    expect((await endShow(server.ctx, show.id, 'admin', { actorId: admin.id })).ok).toBe(true);
  });

  it('refuses a wrong key and a rotated-away key before anything is stored', async () => {
    const show = await schedule('Key check', false);
    const rotated = await api.call('POST', `/admin/live/shows/${show.id}/key`, { token: admin.token });
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.data.show.streamKey as string;
    expect(newKey).not.toBe(show.streamKey);
    for (const key of ['not-a-key-of-any-show-0000000000', show.streamKey]) {
      const pusher = pushRtmp(`${rtmp}/${key}`, { seconds: 20 });
      expect(await exitWithin(pusher, 15_000)).not.toBe(0);
    }
    expect((await statusOf(show.id))?.status).toBe('scheduled');
    expect(await server.ctx.media.listVideo(`live-${show.id}`)).toEqual([]);
  });

  it('goes live on the push, plays encrypted live HLS capped by plan, ends when the push stops, and keeps the replay', async () => {
    const show = await schedule('The live one', true);
    const pushedAt = Date.now();
    const pusher = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 60 });
    const timings: Record<string, number> = {};
    try {
      await until('the show to be live', async () => (await statusOf(show.id))?.status === 'live', 20_000);
      timings.liveAfterPushMs = Date.now() - pushedAt;

      // Refusals as for a video: anonymous 401, no plan 403 with its code.
      const anon = await api.call('GET', `/live/shows/${show.id}/stream`);
      expect(anon.status).toBe(401);
      expect(anon.body).toMatchObject({ success: false, code: 'access.not_logged_in' });
      const refused = await api.call('GET', `/live/shows/${show.id}/stream`, { token: noPlan.token });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false, code: 'access.subscription_required' });

      // Live from the encoder's first packet, playable once every rendition has its first playlist.
      await until(
        'the first segments',
        async () => (await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token })).body.data.hlsUrl !== null,
        20_000,
      );
      // The annual member: both renditions; the monthly member: none above the monthly cap (240).
      const full = (await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token })).body.data;
      expect(full).toMatchObject({ status: 'live', qualities: ['360p', '240p'], message: null });
      const capped = (await api.call('GET', `/live/shows/${show.id}/stream`, { token: monthly.token })).body.data;
      expect(capped.qualities).toEqual(['240p']);
      const cappedMaster = await (await get(capped.hlsUrl)).text();
      expect(cappedMaster).toContain('240p/index.m3u8');
      expect(cappedMaster).not.toContain('360p');
      const cappedTry = await get(capped.hlsUrl.replace('master.m3u8', '360p/index.m3u8'));
      expect(cappedTry.status).toBe(403);

      const master = await (await get(full.hlsUrl)).text();
      expect(master).toMatch(/RESOLUTION=640x360/);
      const mediaUrl = new URL(master.split('\n').find((l) => l.startsWith('360p/')) as string, new URL(full.hlsUrl, server.url));
      // The live edge moves: two segments listed, then they decrypt and decode.
      const playlist = await until(
        'two live segments',
        async () => {
          const res = await fetch(mediaUrl);
          const text = res.status === 200 ? await res.text() : '';
          return text.split('\n').filter((l) => l.includes('.ts?')).length >= 2 && text;
        },
        30_000,
      );
      timings.twoSegmentsAfterPushMs = Date.now() - pushedAt;
      expect(playlist).not.toContain('#EXT-X-ENDLIST');
      expect(playlist).toMatch(/#EXT-X-TARGETDURATION:2/);
      const keyUri = /URI="([^"]+)"/.exec(playlist)?.[1] as string;
      const sequence = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1]);
      const segmentUri = playlist.split('\n').find((l) => l.includes('.ts?')) as string;
      const key = Buffer.from(await (await get(keyUri)).arrayBuffer());
      expect(key.length).toBe(16);
      const segment = Buffer.from(await (await fetch(new URL(segmentUri, mediaUrl))).arrayBuffer());
      // Encrypted: not MPEG-TS as stored (a sync byte every 188 bytes).
      expect(segment[0] === 0x47 && segment[188] === 0x47).toBe(false);
      const iv = Buffer.alloc(16);
      iv.writeBigUInt64BE(BigInt(sequence), 8);
      const decipher = createDecipheriv('aes-128-cbc', key, iv);
      const clear = Buffer.concat([decipher.update(segment), decipher.final()]);
      const file = path.join(work, `${kind}-segment.ts`);
      fs.writeFileSync(file, clear);
      const probe = JSON.parse(
        execFileSync(mediaBinaries().ffprobe, ['-v', 'error', '-show_entries', 'stream=codec_type,height', '-of', 'json', file], {
          encoding: 'utf8',
        }),
      ) as { streams: { codec_type: string; height?: number }[] };
      expect(probe.streams.find((s) => s.codec_type === 'video')?.height).toBe(360);
      expect(probe.streams.some((s) => s.codec_type === 'audio')).toBe(true);
      execFileSync(mediaBinaries().ffmpeg, ['-v', 'error', '-i', file, '-f', 'null', '-']);
      // A key token is for its show and member: another member's key token does not open it.
      const forged = keyUri.replace(/u=[^&]+/, `u=${monthly.id}`);
      expect((await get(forged)).status).toBe(403);
    } finally {
      pusher.kill('SIGINT');
    }
    // The encoder stopped: the show ends (target 30 s), the playlists end, the replay is in the library, unpublished.
    const started = Date.now();
    await until('the show to end', async () => (await statusOf(show.id))?.status === 'ended', 30_000);
    const endedAfter = Date.now() - started;
    expect(endedAfter).toBeLessThan(30_000);
    // Measured, not asserted beyond the 30 s: printed for docs/live.md's figures.
    console.log(`[live ${kind}] ${JSON.stringify({ ...timings, endedAfterPushStoppedMs: endedAfter })}`);
    // The admin's list: the show ended, its replay named, no key in it.
    const listed = await api.call('GET', '/admin/live/shows', { token: admin.token });
    expect(listed.body.data.shows.find((s: { id: string }) => s.id === show.id)).toMatchObject({
      status: 'ended',
      endedAt: expect.any(String),
    });
    expect(JSON.stringify(listed.body)).not.toContain(show.streamKey);
    const after = await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token });
    expect(after.body.data).toMatchObject({ status: 'ended', hlsUrl: null, message: 'The show has ended' });
    const stored = await server.ctx.media.readText(`videos/live-${show.id}/hls/360p/index.m3u8`);
    expect(stored).toContain('#EXT-X-ENDLIST');
    const replay = await until(
      'the replay video',
      async () =>
        (await server.ctx.db.get<{ replay_video_id: string | null }>('SELECT replay_video_id FROM live_shows WHERE id = ?', [show.id]))
          ?.replay_video_id,
      30_000,
    );
    const video = await server.ctx.db.get<{ published: number; access_level: string; title: string }>(
      'SELECT published, access_level, title FROM videos WHERE id = ?',
      [replay],
    );
    expect(video).toMatchObject({ access_level: 'premium', title: 'The live one' });
    expect(Number(video?.published)).toBe(0);
    // The same key again after the end: refused.
    const again = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 20 });
    expect(await exitWithin(again, 15_000)).not.toBe(0);
  });

  it('an admin ends a live show: the encoder is disconnected and the show ends', async () => {
    const show = await schedule('Ended by the admin', false);
    const pusher = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 60 });
    try {
      await until('the show to be live', async () => (await statusOf(show.id))?.status === 'live', 20_000);
      const ended = await api.call('POST', `/admin/live/shows/${show.id}/end`, { token: admin.token });
      expect(ended.status).toBe(200);
      expect(ended.body.data.show.status).toBe('ended');
      expect(await exitWithin(pusher, 15_000)).not.toBeNull();
    } finally {
      pusher.kill('SIGINT');
    }
    await until(
      'the playlists to end',
      async () =>
        (await server.ctx.media.readText(`videos/live-${show.id}/hls/240p/index.m3u8`).catch(() => null))?.includes('#EXT-X-ENDLIST'),
      20_000,
    );
  });

  it('a server whose RTMP port another program holds still starts and serves (the ingest alone is off)', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const other = await startTestServer(kind, { env: { LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' } });
      try {
        expect((await fetch(`${other.url}/api/health`)).status).toBe(200);
      } finally {
        await other.close();
      }
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('refuses bad input with the envelope, and a member on the admin routes', async () => {
    const bad = await api.call('POST', '/admin/live/shows', {
      token: admin.token,
      body: { title: ' ', accessLevel: 'gold', startsAt: 'soon', saveReplay: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'validation.invalid_body' });
    const member = await api.call('POST', '/admin/live/shows', {
      token: annual.token,
      body: { title: 'x', accessLevel: 'free', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
    });
    expect(member.status).toBe(403);
    const unknown = await api.call('POST', `/admin/live/shows/${'0'.repeat(8)}-0000-4000-8000-000000000000/end`, { token: admin.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'live.show_not_found' });
  });
});
