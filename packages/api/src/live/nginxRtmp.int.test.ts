/**
 * The production ingest shape of docs/live.md "nginx-rtmp in front" (issue 43 item 2), through a
 * real nginx with Debian's RTMP module: the shipped deploy/nginx-rtmp.conf.template and the shipped
 * HTTP site (deploy/nginx.conf.template), rendered for free ports, in front of a production API
 * (NODE_ENV=production) whose embedded ingest listens on loopback only.
 *
 * - The right key: nginx asks the API (`on_publish`), relays the push to the ingest, the show goes
 *   live and a member plays its encrypted live HLS through the site; when the encoder stops, the
 *   show ends. The same key again (reused) is then refused.
 * - A wrong or rotated-away key: nginx refuses the publish (ffmpeg fails), the show stays
 *   scheduled, and not one connection of it reaches the API's ingest (its log never sees it).
 * - The publish check is not for the public site: through the site, without LIVE_PUBLISH_SECRET or
 *   with a guess, even with a live key, it is a 403 and changes nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConf, renderRtmpConf, standaloneNginxConf } from '../../../../deploy/render-nginx.mjs';
import { apiClient, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { NGINX, nginxRtmpAvailable } from '../../test/requirements.js';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { freePort, LIVE_TEST_SITE, pushRtmp, until } from './live.testkit.js';

/** What the embedded ingest logs when a publish reaches it with a key it refuses (rtmpIngest.ts). */
const INGEST_REFUSED = 'live: a publish with a wrong, old or reused stream key was refused';
/** What the publish check logs when it refuses nginx-rtmp's question (publishCheck.routes.ts). */
const CHECK_REFUSED = 'live: nginx-rtmp asked about a wrong, old or reused stream key: refused';

/** What became of a 20-second push to `url` within 15 s: refused (ffmpeg failed), published (it ended well) or still running. */
async function pushOutcome(url: string): Promise<'refused' | 'published' | 'still running'> {
  const child = pushRtmp(url, { seconds: 20 });
  const closed = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
  // fixed wait: a refused push exits at once; one that is accepted runs its 20 s, which is the outcome to see.
  const exit = await Promise.race([closed, sleep(15_000).then(() => null)]);
  if (exit === null) child.kill('SIGKILL');
  return exit === null ? 'still running' : exit === 0 ? 'published' : 'refused';
}

describe.runIf(nginxRtmpAvailable())('nginx-rtmp (the shipped config) in front of the production ingest', () => {
  const secret = randomBytes(32).toString('base64url');
  const logLines: string[] = [];
  const logged = (msg: string) => logLines.filter((l) => l.includes(msg)).length;
  let server: TestServer;
  let nginx: ChildProcess;
  let prefix: string;
  let site: string;
  let rtmp: string;
  let api: ReturnType<typeof apiClient>;
  let ingestPort: number;
  let admin: TestViewer;
  let annual: TestViewer;

  beforeAll(async () => {
    const [httpPort, rtmpPort] = [await freePort(), await freePort()];
    ingestPort = await freePort();
    site = `http://127.0.0.1:${httpPort}`;
    rtmp = `rtmp://127.0.0.1:${rtmpPort}/live`;
    server = await startTestServer('sqlite', {
      env: {
        NODE_ENV: 'production',
        PUBLIC_URL: site,
        TRUST_PROXY: 'true',
        REQUIRE_ADMIN_2FA: 'false',
        LIVE_RTMP_PORT: String(ingestPort),
        LIVE_RTMP_HOST: '127.0.0.1',
        LIVE_PUBLISH_SECRET: secret,
        LIVE_INGEST_URL: rtmp,
      },
      site: LIVE_TEST_SITE,
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }),
    });
    api = apiClient(site);
    admin = await createTestUser(server.ctx, { role: 'admin' });
    annual = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, annual.id, 'annual');

    prefix = tmpDir('members-nginx-rtmp-');
    fs.mkdirSync(path.join(prefix, 'tmp'));
    fs.mkdirSync(path.join(prefix, 'logs'));
    const apiAddress = new URL(server.url).host;
    const httpSite = renderNginxConf({
      upstreams: [apiAddress],
      listen: `127.0.0.1:${httpPort}`,
      serverName: '127.0.0.1',
      mediaRoot: path.join(server.store.dataDir, 'media'),
      cacheDir: path.join(prefix, 'grants'),
      maxBody: '10m',
    });
    const rtmpBlock = renderRtmpConf({
      listen: `127.0.0.1:${rtmpPort}`,
      publishUrl: server.url,
      ingest: `127.0.0.1:${ingestPort}`,
      publishSecret: secret,
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), standaloneNginxConf(prefix, httpSite, rtmpBlock));
    let out = '';
    nginx = spawn(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stdout?.on('data', (d) => (out += d));
    nginx.stderr?.on('data', (d) => (out += d));
    await until(
      'nginx to serve the site',
      async () => {
        if (nginx.exitCode !== null) throw new Error(`nginx did not start: ${out}`);
        return (await fetch(`${site}/api/health`).catch(() => undefined))?.status === 200;
      },
      10_000,
    );
  }, 90_000);
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    await server?.close();
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  const schedule = async (title: string) => {
    const res = await api.call('POST', '/admin/live/shows', {
      token: admin.token,
      body: { title, accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
    });
    expect(res.status).toBe(201);
    return res.body.data.show as { id: string; ingestUrl: string; streamKey: string };
  };
  const statusOf = async (showId: string) => {
    const res = await api.call('GET', '/live/shows', { token: annual.token });
    return (res.body.data.shows as { id: string; status: string }[]).find((s) => s.id === showId)?.status;
  };
  /** nginx-rtmp's question for `key`, as `on_publish` posts it, to `base` with `query`. */
  const ask = (base: string, key: string, query = '') =>
    fetch(`${base}/api/live/ingest/publish${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `app=live&flashver=FMLE/3.0&tcurl=${encodeURIComponent(rtmp)}&addr=203.0.113.9&clientid=7&call=publish&name=${key}&type=live`,
    });

  it('the right key: nginx asks the API, relays to the ingest, the show goes live and a member plays it; the encoder stops, the show ends; the key again is refused', async () => {
    const show = await schedule('Behind nginx-rtmp');
    // The admin is shown nginx's port, not the ingest's own.
    expect(show.ingestUrl).toBe(rtmp);
    const pusher = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 60 });
    try {
      await until('the show to be live', async () => (await statusOf(show.id)) === 'live', 20_000);
      // Playable once every rendition has its first playlist (until then `hlsUrl` is null: "The show is starting").
      const stream = async () => (await api.call('GET', `/live/shows/${show.id}/stream`, { token: annual.token })).body.data;
      await until('the first segments', async () => (await stream()).hlsUrl !== null, 20_000);
      const info = await stream();
      expect(info).toMatchObject({ status: 'live', qualities: ['360p', '240p'] });
      const masterUrl = new URL(info.hlsUrl, site);
      const master = await (await fetch(masterUrl)).text();
      expect(master).toMatch(/RESOLUTION=640x360/);
      const mediaUrl = new URL(master.split('\n').find((l) => l.startsWith('360p/')) as string, masterUrl);
      const playlist = await until(
        'two live segments',
        async () => {
          const res = await fetch(mediaUrl);
          const text = res.status === 200 ? await res.text() : '';
          return text.split('\n').filter((l) => l.includes('.ts?')).length >= 2 && text;
        },
        30_000,
      );
      const keyUri = /URI="([^"]+)"/.exec(playlist)?.[1] as string;
      const sequence = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1]);
      const segmentUri = playlist.split('\n').find((l) => l.includes('.ts?')) as string;
      const key = Buffer.from(await (await fetch(new URL(keyUri, site))).arrayBuffer());
      expect(key.length).toBe(16);
      const segment = Buffer.from(await (await fetch(new URL(segmentUri, mediaUrl))).arrayBuffer());
      const iv = Buffer.alloc(16);
      iv.writeBigUInt64BE(BigInt(sequence), 8);
      const decipher = createDecipheriv('aes-128-cbc', key, iv);
      const clear = Buffer.concat([decipher.update(segment), decipher.final()]);
      // MPEG-TS once decrypted: a sync byte every 188 bytes.
      expect([clear[0], clear[188], clear[376]]).toEqual([0x47, 0x47, 0x47]);
    } finally {
      pusher.kill('SIGINT');
    }
    await until('the show to end', async () => (await statusOf(show.id)) === 'ended', 30_000);

    // Reused: the ended show's key is refused by nginx, and the ingest never sees it.
    const checks = logged(CHECK_REFUSED);
    expect(await pushOutcome(`${rtmp}/${show.streamKey}`)).toBe('refused');
    expect(logged(CHECK_REFUSED)).toBe(checks + 1);
    expect(logged(INGEST_REFUSED)).toBe(0);
  }, 120_000);

  it('a wrong or rotated-away key: nginx refuses the publish, the show stays scheduled, nothing reaches the ingest', async () => {
    const show = await schedule('Wrong keys');
    const rotated = await api.call('POST', `/admin/live/shows/${show.id}/key`, { token: admin.token });
    expect(rotated.status).toBe(200);
    const checks = logged(CHECK_REFUSED);
    for (const key of ['not-a-key-of-any-show-0000000000', show.streamKey]) {
      expect([key, await pushOutcome(`${rtmp}/${key}`)]).toEqual([key, 'refused']);
    }
    // Both were asked about and refused by the API's check; the ingest never had a connection of them.
    expect(logged(CHECK_REFUSED)).toBe(checks + 2);
    expect(logged(INGEST_REFUSED)).toBe(0);
    expect(await statusOf(show.id)).toBe('scheduled');
    expect(await server.ctx.media.listVideo(`live-${show.id}`)).toEqual([]);
    // The zero is a measurement: a wrong key pushed to the ingest itself (loopback only) is logged there.
    expect(await pushOutcome(`rtmp://127.0.0.1:${ingestPort}/live/not-a-key-of-any-show-0000000000`)).toBe('refused');
    await until('the ingest to log the refusal', async () => logged(INGEST_REFUSED) === 1, 5_000);
  }, 60_000);

  it("the publish check answers nginx-rtmp (with the secret) and refuses the public site's callers", async () => {
    const show = await schedule('The check itself');
    // Through the site, as anyone on the internet: no secret, a guessed one, the secret in the body.
    for (const query of ['', '?secret=guess', `?secret=${secret.slice(0, -1)}x`]) {
      const res = await ask(site, show.streamKey, query);
      expect({ query, status: res.status, body: await res.json() }).toEqual({
        query,
        status: 403,
        body: expect.objectContaining({ success: false, code: 'live.publish_refused' }),
      });
    }
    const injected = await fetch(`${site}/api/live/ingest/publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `call=publish&name=${show.streamKey}&secret=${secret}`,
    });
    expect(injected.status).toBe(403);
    // nginx-rtmp's own call (the API's address and the secret): 2xx for the current key, 403 for any other.
    const accepted = await ask(server.url, show.streamKey, `?secret=${secret}`);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ success: true, data: { showId: show.id } });
    const wrong = await ask(server.url, 'not-a-key-of-any-show-0000000000', `?secret=${secret}`);
    expect(wrong.status).toBe(403);
    // nginx-rtmp's form is a few hundred bytes: a large body is refused before it is read.
    const large = await fetch(`${server.url}/api/live/ingest/publish?secret=${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `call=publish&name=${show.streamKey}&pad=${'x'.repeat(10_000)}`,
    });
    expect([large.status, ((await large.json()) as { code: string }).code]).toEqual([413, 'request.body_too_large']);
    // Asking changes nothing: the show is still scheduled.
    expect(await statusOf(show.id)).toBe('scheduled');
  });
});
