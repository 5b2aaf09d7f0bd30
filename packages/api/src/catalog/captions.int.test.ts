/**
 * Caption tracks end to end on the production configuration (NODE_ENV=production), per store (SQLite
 * with media on the local disk; PostgreSQL with media in S3 when the gateway runs): the admin's
 * upload (WebVTT, SRT converted, a `<script>` never served, a non-caption file refused with its
 * line, the same language replaced, a track removed), the catalog listing, the progressive WebVTT
 * route under the video's access decision (the attacker's requests: a member without access, a
 * forged signature), and the HLS SUBTITLES rendition read by real ffprobe and ffmpeg over HTTP
 * from the member's signed master playlist, added after the transcode without a new one.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { mediaKinds } from '../../test/s3.js';
import { mediaBinaries } from '../media/ffmpeg.js';
import { makeMp4 } from '../media/media.testkit.js';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { ingestVideoFile } from './ingest.js';

const run = promisify(execFile);
const fixtures = tmpDir('captions-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const PRODUCTION = { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' };

const VTT_WITH_SCRIPT =
  'WEBVTT\n\n00:00:00.500 --> 00:00:02.500\nHello <b>members</b><script>alert(document.cookie)</script><img src=x onerror=alert(1)>\n\n00:00:02.500 --> 00:00:30.000\nPast the end\n';
const SRT =
  '1\r\n00:00:00,500 --> 00:00:02,000\r\n<font color="#ff0000">Olá</font> <i>membros</i>\r\n\r\n2\r\n00:00:02,000 --> 00:00:02,900\r\nTchau\r\n';

forEachStore('captions', (kind) => {
  let server: TestServer;
  let admin: TestViewer;
  let subscriber: TestViewer;
  let outsider: TestViewer;
  let videoId: string;

  async function postCaption(
    fields: Record<string, string>,
    file: { name: string; text: string | Uint8Array } | null,
    token = admin.token,
  ) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (file) form.append('file', new Blob([file.text]), file.name);
    const res = await fetch(`${server.url}/api/admin/videos/${videoId}/captions`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as { success: boolean; data?: any; error?: string; details?: any } };
  }

  const streamOf = async (who: TestViewer) => {
    const r = await apiClient(server.url).get(`/videos/${videoId}/stream`, who.token);
    expect(r.status).toBe(200);
    return r.body.data as { hlsUrl: string; captions: { language: string; label: string; url: string }[] };
  };

  beforeAll(async () => {
    const media = kind === 'postgres' && mediaKinds().includes('s3') ? 's3' : 'local';
    server = await startTestServer(kind, { env: PRODUCTION, media });
    admin = await createTestUser(server.ctx, { role: 'admin' });
    subscriber = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, subscriber.id, 'monthly');
    // Approved, no subscription: a premium video is refused to them.
    outsider = await createTestUser(server.ctx);
    const copy = path.join(fixtures, `${kind}-clip.mp4`);
    fs.copyFileSync(await makeMp4(fixtures, 3), copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title: 'Captioned', accessLevel: 'premium', actorId: admin.id });
    if (!r.ok) throw new Error(r.error.message);
    videoId = r.videoId;
    for (;;) {
      const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
      if (row?.transcode_status === 'completed') break;
      expect(row?.transcode_status).not.toBe('failed');
      await new Promise((res) => setTimeout(res, 250));
    }
  }, 120_000);
  afterAll(() => server?.close());

  it('adds a WebVTT track after the transcode: 201, listed on the video, markup kept, script and tags dropped, cues clipped', async () => {
    const added = await postCaption({ language: 'en' }, { name: 'clip.en.vtt', text: VTT_WITH_SCRIPT });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ language: 'en', label: 'English', cues: 2, format: 'vtt' });
    const video = await apiClient(server.url).get(`/videos/${videoId}`);
    expect(video.body.data.captions).toEqual([{ language: 'en', label: 'English' }]);

    const res = await fetch(`${server.url}/api/videos/${videoId}/captions/en`, {
      headers: { authorization: `Bearer ${subscriber.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const vtt = await res.text();
    expect(vtt).toBe(
      'WEBVTT\n\n00:00:00.500 --> 00:00:02.500\nHello <b>members</b>alert(document.cookie)\n\n00:00:02.500 --> 00:00:03.000\nPast the end\n',
    );
    expect(vtt).not.toMatch(/<script|<img|onerror/);
  });

  it('SRT arrives as WebVTT, labelled with the language in itself', async () => {
    const added = await postCaption({ language: 'pt-br' }, { name: 'clip.pt-BR.srt', text: SRT });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ language: 'pt-BR', label: 'Português (Brasil)', cues: 2, format: 'srt' });
    // Any case of the tag finds it.
    const res = await fetch(`${server.url}/api/videos/${videoId}/captions/pt-br`, {
      headers: { authorization: `Bearer ${subscriber.token}` },
    });
    expect(await res.text()).toBe(
      'WEBVTT\n\n1\n00:00:00.500 --> 00:00:02.000\nOlá <i>membros</i>\n\n2\n00:00:02.000 --> 00:00:02.900\nTchau\n',
    );
  });

  it('refuses what is not a caption file with the line, a bad language, a missing or too large file; nothing is recorded', async () => {
    const before = (await server.ctx.media.listVideo(videoId)).sort();
    const notCaptions = await postCaption({ language: 'de' }, { name: 'notes.srt', text: 'Shopping list\nmilk\neggs\n' });
    expect(notCaptions.status).toBe(400);
    expect(notCaptions.body).toMatchObject({ success: false, details: { line: 2 } });
    expect(notCaptions.body.error).toBe('Not a valid SRT or WebVTT file: line 2: Cue identifier needs to be followed by timestamp.');
    const badTiming = await postCaption(
      { language: 'de' },
      { name: 'x.vtt', text: 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\n00:00:0x.000 --> 00:00:03.000\nbad\n' },
    );
    expect(badTiming.status).toBe(400);
    expect(badTiming.body.error).toMatch(/^Not a valid WebVTT file: line 6: /);
    const binary = await postCaption({ language: 'de' }, { name: 'x.vtt', text: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]) });
    expect(binary.status).toBe(400);
    expect(binary.body.error).toMatch(/line 1/);
    const badLanguage = await postCaption({ language: '../../etc' }, { name: 'x.vtt', text: VTT_WITH_SCRIPT });
    expect(badLanguage).toMatchObject({
      status: 400,
      body: { success: false, error: 'language must be a BCP 47 tag such as en or pt-BR' },
    });
    expect((await postCaption({ language: 'de' }, null)).status).toBe(400);
    const big = await postCaption({ language: 'de' }, { name: 'big.vtt', text: `WEBVTT\n\n${'x'.repeat(1024 * 1024 + 1)}` });
    expect(big.status).toBe(413);
    expect(big.body.success).toBe(false);
    // A member is not an admin.
    expect((await postCaption({ language: 'de' }, { name: 'x.vtt', text: VTT_WITH_SCRIPT }, subscriber.token)).status).toBe(403);
    expect((await server.ctx.media.listVideo(videoId)).sort()).toEqual(before);
    expect((await apiClient(server.url).get(`/videos/${videoId}`)).body.data.captions.map((t: { language: string }) => t.language)).toEqual(
      ['en', 'pt-BR'],
    );
  });

  it('the same language replaces the track (one file left), with the label given', async () => {
    const replaced = await postCaption(
      { language: 'en', label: 'English (CC)' },
      { name: 'clip.en.vtt', text: 'WEBVTT\n\n00:00:00.500 --> 00:00:02.500\nHello again\n' },
    );
    expect(replaced.status).toBe(201);
    expect(replaced.body.data.label).toBe('English (CC)');
    const res = await fetch(`${server.url}/api/videos/${videoId}/captions/en`, {
      headers: { authorization: `Bearer ${subscriber.token}` },
    });
    expect(await res.text()).toContain('Hello again');
    const keys = await server.ctx.media.listVideo(videoId);
    expect(keys.filter((k) => k.includes('/captions/en.'))).toHaveLength(1);
    expect((await apiClient(server.url).get(`/videos/${videoId}`)).body.data.captions).toEqual([
      { language: 'en', label: 'English (CC)' },
      { language: 'pt-BR', label: 'Português (Brasil)' },
    ]);
  });

  it("a member without access gets 403 for the track, by token and with a forged or another member's signed URL", async () => {
    const direct = await fetch(`${server.url}/api/videos/${videoId}/captions/en`, {
      headers: { authorization: `Bearer ${outsider.token}` },
    });
    expect(direct.status).toBe(403);
    expect(await direct.text()).not.toContain('Hello');
    expect((await fetch(`${server.url}/api/videos/${videoId}/captions/en`)).status).toBe(401);
    const { captions, hlsUrl } = await streamOf(subscriber);
    const signed = captions.find((t) => t.language === 'en')?.url as string;
    expect(signed).toMatch(new RegExp(`^/api/videos/${videoId}/captions/en\\?u=`));
    // The subscriber's signed URL works without a token (a <track> sends none)...
    expect((await fetch(`${server.url}${signed}`)).status).toBe(200);
    // ...another member cannot make one: a changed user or signature is refused, never served.
    const forged = signed.replace(/u=[^&]+/, `u=${outsider.id}`);
    expect((await fetch(`${server.url}${forged}`)).status).toBe(403);
    const hlsForged = new URL(hlsUrl, server.url);
    hlsForged.pathname = hlsForged.pathname.replace('master.m3u8', 'captions/en/captions.vtt');
    hlsForged.searchParams.set('u', outsider.id);
    expect((await fetch(hlsForged)).status).toBe(403);
    // The outsider's own stream request is refused, so they hold no signed URL at all.
    expect((await apiClient(server.url).get(`/videos/${videoId}/stream`, outsider.token)).status).toBe(403);
  });

  it('HLS: a SUBTITLES rendition per track, named on every variant, that ffprobe and ffmpeg read over HTTP', async () => {
    const { hlsUrl } = await streamOf(subscriber);
    const master = new URL(hlsUrl, server.url).toString();
    const text = await (await fetch(master)).text();
    const media = text.split('\n').filter((l) => l.startsWith('#EXT-X-MEDIA:'));
    expect(media).toHaveLength(2);
    expect(media[0]).toMatch(
      /^#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English \(CC\)",DEFAULT=NO,AUTOSELECT=YES,URI="captions\/en\/index\.m3u8\?u=/,
    );
    const variants = text.split('\n').filter((l) => l.startsWith('#EXT-X-STREAM-INF:'));
    expect(variants.length).toBeGreaterThan(0);
    for (const v of variants) expect(v).toMatch(/,SUBTITLES="subs"$/);

    // Debian 12's ffmpeg (5.1) does not open SUBTITLES renditions from a master ("Can't support the
    // subtitle"): it reads the rendition's own playlist, at the URI the master names, as a player does.
    const uri = /URI="([^"]+)"/.exec(media[0] as string)?.[1] as string;
    const rendition = new URL(uri, master).toString();
    const probe = await run(
      mediaBinaries().ffprobe,
      ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'json', rendition],
      {
        timeout: 60_000,
      },
    );
    const streams = JSON.parse(probe.stdout).streams as { codec_type: string; codec_name: string }[];
    expect(streams).toEqual([{ codec_type: 'subtitle', codec_name: 'webvtt' }]);
    const { stdout } = await run(mediaBinaries().ffmpeg, ['-v', 'error', '-i', rendition, '-map', '0:s:0', '-f', 'webvtt', '-'], {
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^WEBVTT\n\n00:00.500 --> 00:02.500\nHello again\n/);
    // The segment carries the MPEG-TS map for hls.js and Safari (the transcoder's segments start at 1.4 s).
    const segment = await (
      await fetch(
        new URL((await (await fetch(rendition)).text()).split('\n').find((l) => l.startsWith('captions.vtt')) as string, rendition),
      )
    ).text();
    expect(segment.split('\n').slice(0, 2)).toEqual(['WEBVTT', 'X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000']);
    const start = await run(mediaBinaries().ffprobe, ['-v', 'error', '-show_entries', 'format=start_time', '-of', 'csv=p=0', master], {
      timeout: 60_000,
    });
    expect(Number(start.stdout.trim())).toBeCloseTo(126000 / 90000, 1);
  }, 90_000);

  it('removes a track: gone from the video, the master and the store', async () => {
    const del = await fetch(`${server.url}/api/admin/videos/${videoId}/captions/pt-BR`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { data: unknown }).data).toEqual({ videoId, language: 'pt-BR', deleted: true });
    const again = await fetch(`${server.url}/api/admin/videos/${videoId}/captions/pt-BR`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(again.status).toBe(404);
    expect(
      (await fetch(`${server.url}/api/videos/${videoId}/captions/pt-BR`, { headers: { authorization: `Bearer ${subscriber.token}` } }))
        .status,
    ).toBe(404);
    const { hlsUrl } = await streamOf(subscriber);
    const text = await (await fetch(new URL(hlsUrl, server.url))).text();
    expect(text.match(/^#EXT-X-MEDIA:/gm)).toHaveLength(1);
    expect((await server.ctx.media.listVideo(videoId)).some((k) => k.includes('/captions/pt-BR.'))).toBe(false);
  });

  it('a label with control or direction characters is refused; zero-width only gets the language’s name; nothing recorded', async () => {
    const before = await server.ctx.store.headPosition();
    for (const [label, words] of [
      ['English\u202e', 'label must not contain text direction override characters'],
      ['English\u2066 · VIP', 'label must not contain text direction override characters'],
      ['English\u001b[31m', 'label must not contain control characters'],
      ['English\r\nX-Injected: yes', 'label must not contain control characters'],
    ]) {
      const r = await postCaption({ language: 'de', label: label as string }, { name: 'clip.de.vtt', text: VTT_WITH_SCRIPT });
      expect([JSON.stringify(label), r.status, r.body.success, r.body.error]).toEqual([JSON.stringify(label), 400, false, words]);
    }
    expect(await server.ctx.store.headPosition()).toBe(before);
    const invisible = await postCaption({ language: 'de', label: '\u200b\u200b' }, { name: 'clip.de.vtt', text: VTT_WITH_SCRIPT });
    expect(invisible.status).toBe(201);
    expect(invisible.body.data.label).toBe('Deutsch');
  });

  it('a WebVTT file with REGION blocks is accepted (issue 44) and served sanitised: regions, styles and markup outside WebVTT dropped', async () => {
    const withRegion = [
      'WEBVTT',
      '',
      'REGION',
      'id:fred',
      'width:40%',
      'lines:3',
      'regionanchor:0%,100%',
      'viewportanchor:10%,90%',
      'scroll:up',
      '',
      'STYLE',
      '::cue { background-image: url(https://evil.example/track.png) }',
      '',
      '00:00:00.000 --> 00:00:01.000 region:fred align:left',
      '<v Fred>Hi, my name is Fred<script>alert(1)</script>',
      '',
    ].join('\n');
    const added = await postCaption({ language: 'fr' }, { name: 'clip.fr.vtt', text: withRegion });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ language: 'fr', label: 'Français', cues: 1, format: 'vtt' });
    const res = await fetch(`${server.url}/api/videos/${videoId}/captions/fr`, {
      headers: { authorization: `Bearer ${subscriber.token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.000 align:left\n<v Fred>Hi, my name is Fredalert(1)</v>\n');
  });
});
