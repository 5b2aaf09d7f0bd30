import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { ingestVideoFile } from '../catalog/ingest';
import { makeMp4, makeWebm } from '../media/media.testkit';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from './viewers.testkit';

const fixtures = tmpDir('streaming-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const UTAH_IP = '98.202.0.1'; // geoip-lite: US-UT
const GB_IP = '81.2.69.142'; // geoip-lite: GB-ENG
const SITE_GEO = { geo: { blockedRegions: ['US-UT'], verificationRegions: ['GB'] } };
const LONG_TOKENS = { TRUST_PROXY: 'true', ACCESS_TOKEN_TTL_SECONDS: String(30 * 24 * 3600) };

/** The signature with its first character changed (always a different, still well-formed signature). */
const otherFirstChar = (sig: string) => `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;

const M = {
  notFound: 'Video not found',
  region: 'Content not available in your region',
  login: 'Please log in to view videos',
  pending: 'Your account is pending approval. You will receive an email when approved.',
  premium: 'Active subscription required to view premium content',
  vip: 'VIP subscription required to view this exclusive content',
};
/** The code each refusal carries (clients branch on it, not on the words). */
const CODE: Record<string, string> = {
  [M.notFound]: 'video.not_found',
  [M.region]: 'access.region_blocked',
  [M.login]: 'access.not_logged_in',
  [M.pending]: 'access.not_approved',
  [M.premium]: 'access.subscription_required',
  [M.vip]: 'access.vip_subscription_required',
};

forEachStore('streaming', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  const users: Record<string, TestViewer | undefined> = {};
  const videos: Record<'free' | 'premium' | 'vip', string> = { free: '', premium: '', vip: '' };
  let mp4: string;

  const stream = (videoId: string, token?: string, headers: Record<string, string> = {}) =>
    api.call('GET', `/videos/${videoId}/stream`, { token, headers });

  beforeAll(async () => {
    server = await startTestServer(kind, { env: LONG_TOKENS, site: SITE_GEO });
    api = apiClient(server.url);
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    users.visitor = undefined;
    users.pending = await createTestUser(server.ctx, { approved: false });
    users.rejected = await createTestUser(server.ctx, { approved: false, rejected: true });
    users.member = await createTestUser(server.ctx);
    users.subscriber = await createTestUser(server.ctx);
    users.admin = admin;
    users.subscribedAdmin = await createTestUser(server.ctx, { role: 'admin' });
    for (const u of [users.subscriber, users.subscribedAdmin]) await grantActiveSubscriptionForTest(server.ctx, (u as TestViewer).id);
    mp4 = await makeMp4(fixtures, 3);
    for (const level of ['free', 'premium', 'vip'] as const) {
      const copy = path.join(fixtures, `${kind}-${level}.${level === 'vip' ? 'webm' : 'mp4'}`);
      fs.copyFileSync(level === 'vip' ? await makeWebm(fixtures, 2) : mp4, copy);
      const r = await ingestVideoFile(server.ctx, { filePath: copy, title: `${level} video`, accessLevel: level, actorId: admin.id });
      if (!r.ok) throw new Error(r.error.message);
      videos[level] = r.videoId;
    }
  });
  afterAll(() => server?.close());

  describe('the access decision on the stream endpoint, every role × level', () => {
    const expected: Record<string, Record<'free' | 'premium' | 'vip', [number, string | null]>> = {
      visitor: { free: [401, M.login], premium: [401, M.login], vip: [401, M.login] },
      pending: { free: [403, M.pending], premium: [403, M.pending], vip: [403, M.pending] },
      rejected: { free: [403, M.pending], premium: [403, M.pending], vip: [403, M.pending] },
      member: { free: [200, null], premium: [403, M.premium], vip: [403, M.vip] },
      subscriber: { free: [200, null], premium: [200, null], vip: [200, null] },
      // Issue 40: the creator previews her library without a subscription (docs/spec-departures.md).
      admin: { free: [200, null], premium: [200, null], vip: [200, null] },
      subscribedAdmin: { free: [200, null], premium: [200, null], vip: [200, null] },
    };
    for (const [role, byLevel] of Object.entries(expected))
      for (const [level, [status, message]] of Object.entries(byLevel))
        it(`${role} × ${level} → ${status}`, async () => {
          const r = await stream(videos[level as 'free'], users[role]?.token);
          expect(r.status).toBe(status);
          if (message) expect(r.body).toEqual({ success: false, error: message, code: CODE[message] });
          else {
            expect(Object.keys(r.body.data).sort()).toEqual([
              'captions',
              'expiresAt',
              'hlsUrl',
              'previewsUrl',
              'qualities',
              'streamUrl',
              'watermarkText',
            ]);
            // Not transcoded (the suite runs no worker): no HLS; the original only to admins, nothing
            // to members (no progressive file within their cap exists yet).
            expect([r.body.data.hlsUrl, r.body.data.qualities]).toEqual([null, []]);
            expect(r.body.data.streamUrl === null).toBe(!role.endsWith('dmin'));
          }
        });

    it('unknown video: Video not found, before anything else', async () => {
      const r = await stream('00000000-0000-0000-0000-000000000000', undefined, { 'x-forwarded-for': UTAH_IP });
      expect(r).toMatchObject({ status: 404, body: { success: false, error: M.notFound, code: 'video.not_found' } });
    });

    it('a blocked region is refused server-side, before login and subscription', async () => {
      for (const token of [undefined, users.subscriber?.token]) {
        const r = await stream(videos.free, token, { 'x-forwarded-for': `${UTAH_IP}, 10.0.0.1` });
        expect(r).toMatchObject({ status: 403, body: { success: false, error: M.region, code: 'access.region_blocked' } });
      }
    });
  });

  describe('the signed media URL (the original, as admins get it)', () => {
    let url: URL;
    let bytes: Buffer;
    beforeAll(async () => {
      const r = await stream(videos.premium, users.subscribedAdmin?.token);
      url = new URL(r.body.data.streamUrl, server.url);
      expect(url.searchParams.get('r')).toBe('original');
      expect(r.body.data.watermarkText).toContain(users.subscribedAdmin?.email);
      bytes = fs.readFileSync(mp4);
    });
    const get = (headers: Record<string, string> = {}, u: URL = url, method = 'GET') => fetch(u, { headers, method });

    it('a full GET: 200, the whole file, the right headers', async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('content-type')).toBe('video/mp4');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('cache-control')).toMatch(/^private/);
      expect(res.headers.get('etag')).toMatch(/^"v-/);
      expect(res.headers.get('last-modified')).toBeTruthy();
    });

    it('curl -r 0-99: 206 with 100 bytes', async () => {
      const res = await get({ range: 'bytes=0-99' });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.length).toBe(100);
      expect(body.equals(bytes.subarray(0, 100))).toBe(true);
    });

    it('first byte, last byte, suffix, open-ended and past-the-end ranges', async () => {
      const n = bytes.length;
      const cases: [string, number, string | null, Buffer | null][] = [
        ['bytes=0-0', 206, `bytes 0-0/${n}`, bytes.subarray(0, 1)],
        [`bytes=${n - 1}-${n - 1}`, 206, `bytes ${n - 1}-${n - 1}/${n}`, bytes.subarray(n - 1)],
        ['bytes=-100', 206, `bytes ${n - 100}-${n - 1}/${n}`, bytes.subarray(n - 100)],
        [`bytes=${n - 10}-`, 206, `bytes ${n - 10}-${n - 1}/${n}`, bytes.subarray(n - 10)],
        [`bytes=${n - 10}-${n + 1000}`, 206, `bytes ${n - 10}-${n - 1}/${n}`, bytes.subarray(n - 10)],
        [`bytes=${n}-`, 416, `bytes */${n}`, null],
        [`bytes=${n + 5}-${n + 10}`, 416, `bytes */${n}`, null],
        ['bytes=-0', 416, `bytes */${n}`, null],
        ['bytes=0-1,5-6', 200, null, bytes],
      ];
      for (const [range, status, contentRange, body] of cases) {
        const res = await get({ range });
        expect([range, res.status]).toEqual([range, status]);
        expect(res.headers.get('content-range')).toBe(contentRange);
        const got = Buffer.from(await res.arrayBuffer());
        if (body) expect(got.equals(body)).toBe(true);
      }
    });

    it('sequential ranges as a player asks them reassemble the file', async () => {
      const parts: Buffer[] = [];
      for (let start = 0; start < bytes.length; start += 16_384) {
        const res = await get({ range: `bytes=${start}-${Math.min(start + 16_383, bytes.length - 1)}` });
        expect(res.status).toBe(206);
        parts.push(Buffer.from(await res.arrayBuffer()));
      }
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    });

    it('If-Range, If-None-Match and HEAD', async () => {
      const etag = (await get({ range: 'bytes=0-0' })).headers.get('etag') as string;
      const lastModified = (await get({ range: 'bytes=0-0' })).headers.get('last-modified') as string;
      expect((await get({ range: 'bytes=0-9', 'if-range': etag })).status).toBe(206);
      expect((await get({ range: 'bytes=0-9', 'if-range': lastModified })).status).toBe(206);
      const stale = await get({ range: 'bytes=0-9', 'if-range': '"v-0-0"' });
      expect(stale.status).toBe(200);
      expect(Buffer.from(await stale.arrayBuffer()).length).toBe(bytes.length);
      expect((await get({ 'if-none-match': etag })).status).toBe(304);
      const head = await get({}, url, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      const headRange = await get({ range: 'bytes=10-19' }, url, 'HEAD');
      expect([headRange.status, headRange.headers.get('content-range')]).toEqual([206, `bytes 10-19/${bytes.length}`]);
    });

    it('a tampered, other-user or other-video signature is 403', async () => {
      const other = users.member as TestViewer;
      const variants: ((u: URL) => void)[] = [
        // Another first character: "…AA" in place of the last two would be no change when the signature ends so.
        (u) => u.searchParams.set('s', otherFirstChar(u.searchParams.get('s') ?? '')),
        (u) => u.searchParams.set('u', other.id),
        (u) => u.searchParams.set('e', String(Number(u.searchParams.get('e')) + 86_400)),
        (u) => u.searchParams.delete('s'),
        // The file is signed too: another name on the admin's signature is a forged link.
        (u) => u.searchParams.set('r', '1080p'),
        (u) => u.searchParams.delete('r'),
        (u) => {
          u.pathname = u.pathname.replace(videos.premium, videos.free);
        },
      ];
      for (const change of variants) {
        const u = new URL(url);
        change(u);
        const res = await get({}, u);
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({
          success: false,
          error: 'This video link is not valid. Please open the video again.',
          code: 'stream.link_invalid',
        });
      }
      const traversal = await fetch(`${server.url}/api/media/videos/..%2F..%2Fstore.sqlite${url.search}`);
      expect([403, 404]).toContain(traversal.status);
    });

    it('works until its expiry (2 hours), then 403', async () => {
      server.clock.advance(7_200_000 - 5_000);
      expect((await get({ range: 'bytes=0-0' })).status).toBe(206);
      server.clock.advance(5_000);
      const res = await get({ range: 'bytes=0-0' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toBe('This video link has expired. Please open the video again.');
    });
  });

  describe('views', () => {
    const view = (videoId: string, duration: unknown, token?: string, headers: Record<string, string> = {}) =>
      api.call('POST', `/videos/${videoId}/view`, { body: { duration }, token, headers });

    it('count only above 5 s, once per viewer per video per 30 minutes', async () => {
      const token = users.subscriber?.token;
      expect((await view(videos.premium, 5, token)).body.data).toEqual({ counted: false, viewCount: 0 });
      expect((await view(videos.premium, 6, token)).body.data).toEqual({ counted: true, viewCount: 1 });
      expect((await view(videos.premium, 60, token)).body.data).toEqual({ counted: false, viewCount: 1 });
      // An admin's preview is not a member's view (issue 40: the creator's numbers are the members').
      expect((await view(videos.premium, 60, users.subscribedAdmin?.token)).body.data).toEqual({ counted: false, viewCount: 1 });
      expect((await view(videos.premium, 60, users.admin?.token)).body.data).toEqual({ counted: false, viewCount: 1 });
      server.clock.advance(29 * 60_000);
      expect((await view(videos.premium, 60, token)).body.data.counted).toBe(false);
      server.clock.advance(60_000);
      expect((await view(videos.premium, 60, token)).body.data).toEqual({ counted: true, viewCount: 2 });
      expect((await api.get(`/videos/${videos.premium}`)).body.data.viewCount).toBe(2);
    });

    it('only for a viewer allowed to stream', async () => {
      expect(await view(videos.premium, 60)).toMatchObject({ status: 401, body: { error: M.login } });
      expect(await view(videos.premium, 60, users.member?.token)).toMatchObject({ status: 403, body: { error: M.premium } });
      expect(await view(videos.premium, 60, users.pending?.token)).toMatchObject({ status: 403, body: { error: M.pending } });
      expect(await view(videos.premium, 60, users.subscriber?.token, { 'x-forwarded-for': UTAH_IP })).toMatchObject({
        status: 403,
        body: { error: M.region },
      });
      expect((await view(videos.free, 60, users.member?.token)).body.data.counted).toBe(true);
      expect((await api.get(`/videos/${videos.premium}`)).body.data.viewCount).toBe(2);
    });

    it('a bad duration is a 400 naming it', async () => {
      for (const d of [-1, 'ten', null, 1e9]) {
        const r = await view(videos.free, d, users.subscriber?.token);
        expect(r.status).toBe(400);
        expect(r.body.error).toMatch(/^duration/);
      }
    });
  });

  describe('geo check', () => {
    it('honours X-Forwarded-For behind a trusted proxy', async () => {
      const blocked = await api.call('GET', '/geo/check', { headers: { 'x-forwarded-for': UTAH_IP } });
      expect(blocked.body.data).toEqual({ blocked: true, requiresVerification: false, country: 'US', region: 'UT' });
      const gb = await api.call('GET', '/geo/check', { headers: { 'x-forwarded-for': GB_IP } });
      expect(gb.body.data).toMatchObject({ blocked: false, requiresVerification: true, country: 'GB' });
      for (const ip of ['10.1.2.3', '127.0.0.1', '192.168.0.9', '::1']) {
        const r = await api.call('GET', '/geo/check', { headers: { 'x-forwarded-for': ip } });
        expect(r.body.data).toEqual({ blocked: false, requiresVerification: false, country: null, region: null });
      }
    });

    it('ignores a forged X-Forwarded-For without TRUST_PROXY (loopback is never blocked)', async () => {
      const direct = await startTestServer(kind, { env: { TRUST_PROXY: 'false' }, site: SITE_GEO });
      try {
        const client = apiClient(direct.url);
        const r = await client.call('GET', '/geo/check', { headers: { 'x-forwarded-for': UTAH_IP } });
        expect(r.body).toEqual({ success: true, data: { blocked: false, requiresVerification: false, country: null, region: null } });
      } finally {
        await direct.close();
      }
    });
  });
});
