/**
 * An attacker against the live show's stream, playlists and keys (issue 43), on the production
 * configuration (NODE_ENV=production): guessed and forged grants, a video's grant or key token
 * carried over to a show, a grant's cap raised by hand, another member's key token, a member whose
 * plan lapsed mid-show, a guessed stream key on the RTMP port. The show is started as the ingest
 * starts it; live.int.test.ts plays a real push end to end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness';
import { exampleSiteConfig } from '../../test/siteConfig';
import { mediaBinaries } from '../media/index';
import { signHlsGrant, signKeyToken } from '../streaming/index';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit';
import { keyFor } from '../transcode/index';
import { scheduleShow, startShow } from './shows.service';

const INVALID = 'This video link is not valid. Please open the video again.';
const SITE = { media: { ...exampleSiteConfig().media, maxHeightByPlan: { monthly: 240, annual: 1080 }, freeMaxHeight: 240 } };
const LADDER = [
  { name: '360p', width: 640, height: 360, bandwidth: 900_000 },
  { name: '240p', width: 426, height: 240, bandwidth: 500_000 },
];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

forEachStore('live show access (production)', (kind) => {
  let server: TestServer;
  let port: number;
  let showId: string;
  let videoGrantId: string;
  let monthly: TestViewer;
  let annual: TestViewer;
  const api = () => apiClient(server.url);
  const get = (url: string) => fetch(new URL(url, server.url));
  const now = () => Math.floor(server.ctx.clock.now().getTime() / 1000);

  beforeAll(async () => {
    port = await freePort();
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example', LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' },
      site: SITE,
    });
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    monthly = await createTestUser(server.ctx);
    annual = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, monthly.id, 'monthly');
    await grantPlanForTest(server.ctx, annual.id, 'annual');
    const s = await scheduleShow(
      server.ctx,
      { title: 'On the air', accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      { actorId: admin.id },
    );
    if (!s.ok) throw new Error(s.error.message);
    showId = s.value.show.id;
    expect((await startShow(server.ctx, showId, s.value.streamKey, LADDER)).ok).toBe(true);
    await keyFor(server.ctx.db, `live-${showId}`, server.ctx.clock.now().toISOString());
    for (const name of ['360p', '240p'])
      for (const [file, body] of [
        [
          'index.m3u8',
          '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-KEY:METHOD=AES-128,URI="key?w=0"\n#EXTINF:2.000,\nseg_00000.ts\n',
        ],
        ['seg_00000.ts', 'encrypted bytes'],
      ] as const) {
        const staged = await server.ctx.media.stagingPath();
        fs.writeFileSync(staged, body);
        await server.ctx.media.putFile(`live-${showId}`, `hls/${name}/${file}`, staged);
      }
    videoGrantId = showId;
  });
  afterAll(() => server?.close());

  it('refuses a grant made for a video of the same id, a grant whose cap was raised by hand, and a grant for another show', async () => {
    // A video's grant (the VOD signing of the same id) is not a show's: the show's grants sign `live-{id}`.
    const { query: videoQuery } = signHlsGrant(server.ctx, videoGrantId, annual.id, 1080);
    const asVideo = await get(`/api/live/hls/${showId}/master.m3u8?${videoQuery}`);
    expect(asVideo.status).toBe(403);
    expect(await asVideo.json()).toMatchObject({ success: false, code: 'stream.link_invalid', error: INVALID });
    // The monthly member's own grant (240), its cap edited to 1080: the signature no longer matches.
    const mine = (await api().call('GET', `/live/shows/${showId}/stream`, { token: monthly.token })).body.data;
    expect(mine.qualities).toEqual(['240p']);
    const raised = (mine.hlsUrl as string).replace(/m=\d+/, 'm=1080');
    expect((await get(raised)).status).toBe(403);
    expect((await get(raised.replace('master.m3u8', '360p/index.m3u8'))).status).toBe(403);
    // Their valid grant does not open the rendition above their cap, neither its playlist nor its segments.
    expect((await get((mine.hlsUrl as string).replace('master.m3u8', '360p/index.m3u8'))).status).toBe(403);
    expect((await get((mine.hlsUrl as string).replace('master.m3u8', 'segments/360p-seg_00000.ts'))).status).toBe(403);
    expect((await get((mine.hlsUrl as string).replace('master.m3u8', 'segments/240p-seg_00000.ts'))).status).toBe(200);
    // The same grant on another show's path.
    const other = (mine.hlsUrl as string).replace(showId, server.ctx.ids.next());
    expect((await get(other)).status).toBe(403);
  });

  it('refuses a key token forged for another member, one made for a video, one without its window, and a member whose plan lapsed', async () => {
    const expires = now() + 600;
    const good = `/api/live/hls/${showId}/key?${signKeyToken(server.ctx, `live-${showId}`, annual.id, expires)}&w=0`;
    const ok = await get(good);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await ok.arrayBuffer()).length).toBe(16);
    expect((await get(good.replace(`u=${annual.id}`, `u=${monthly.id}`))).status).toBe(403);
    expect((await get(`/api/live/hls/${showId}/key?${signKeyToken(server.ctx, showId, annual.id, expires)}&w=0`)).status).toBe(403);
    expect((await get(good.replace('&w=0', ''))).status).toBe(403);
    // The plan lapses while the player holds a token: the next key window is refused with the decision's code.
    await server.ctx.db.run(`UPDATE users SET membership_status = 'expired', subscription_status = 'expired' WHERE id = ?`, [annual.id]);
    const lapsed = await get(good.replace('&w=0', '&w=1'));
    expect(lapsed.status).toBe(403);
    expect(await lapsed.json()).toMatchObject({ success: false, code: 'access.subscription_required' });
    const playlist = await get((await api().call('GET', `/live/shows/${showId}/stream`, { token: monthly.token })).body.data.hlsUrl);
    expect(playlist.status).toBe(200);
  });

  it('refuses an anonymous caller (401) and a member without a plan (403) with the videos\u2019 codes', async () => {
    const anon = await api().call('GET', `/live/shows/${showId}/stream`);
    expect(anon).toMatchObject({ status: 401, body: { success: false, code: 'access.not_logged_in' } });
    const noPlan = await createTestUser(server.ctx);
    const refused = await api().call('GET', `/live/shows/${showId}/stream`, { token: noPlan.token });
    expect(refused).toMatchObject({ status: 403, body: { success: false, code: 'access.subscription_required' } });
    const unknown = await api().call('GET', `/live/shows/${server.ctx.ids.next()}/stream`, { token: monthly.token });
    expect(unknown).toMatchObject({ status: 404, body: { success: false, code: 'live.show_not_found' } });
  });

  it('disconnects a publish with a guessed stream key on the RTMP port, and stores nothing of it', async () => {
    const guessed = spawn(
      mediaBinaries().ffmpeg,
      [
        ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-re'],
        ...['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=20'],
        ...[
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-g',
          '50',
          '-f',
          'flv',
          `rtmp://127.0.0.1:${port}/live/guessed-key-guessed-key-guessed`,
        ],
      ],
      { stdio: 'ignore' },
    ) as ChildProcess;
    const code = await Promise.race([
      new Promise<number>((resolve) => guessed.once('close', (c) => resolve(c ?? -1))),
      // fixed wait: the bound on the refused push's exit, the condition raced against it
      sleep(15_000).then(() => null),
    ]);
    guessed.kill('SIGKILL');
    expect(code).not.toBeNull();
    expect(code).not.toBe(0);
    expect(fs.existsSync(`${server.ctx.env.DATA_DIR}/live`)).toBe(false);
  });
});
