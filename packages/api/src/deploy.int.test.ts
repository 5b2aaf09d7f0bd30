/**
 * The tested deployment (deploy/), in both media shapes (deploy.testkit.ts): a fresh PostgreSQL
 * database, two API processes (the real entry point, child processes on their own loopback ports,
 * MEDIA_ACCEL=nginx) and Debian's nginx in front of them with the config rendered from
 * deploy/nginx.conf.template. [local]: one shared DATA_DIR, the leader transcodes, nginx sends files
 * from the disk. [s3]: each process on its own DATA_DIR, media in a bucket on the suite's Ceph RGW,
 * TRANSCODE_IN_SERVER=false and two token runners, nginx fetching media from the bucket through
 * the presigned URL the API names. Through nginx: the member journey with consecutive requests on
 * different processes, media bytes sent by nginx (never by the API), an upload through one process
 * played through both, segments cacheable and keys and playlists not, every unsigned way to a media
 * file refused, the failed-login limit shared by both processes, and the time-driven work taken over
 * by the survivor when the leader is killed (how fast, against the 10 s target, is bench/leader.ts's
 * figure; here the wait is bounded only to catch a hang). (nginxS3.int.test.ts proves the object
 * store's nginx location in detail with one process; this is the whole deployment together.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, storeKinds, TEST_ADMIN } from '../test/harness.js';
import { bucketKeys, mediaKinds, TEST_S3, testS3Client } from '../test/s3.js';
import { exampleSiteConfig } from '../test/siteConfig.js';
import { applyVerifiedPayment } from './billing/subscriptions.service.js';
import { parseEnv } from './config/env.js';
import { DATA_KEY_SECRET, type Deployment, type Proc, startDeployment, TOKEN_SECRET, waitFor } from './deploy.testkit.js';
import { cookieHeader, cookiesOf } from './identity/identity.testkit.js';
import { type AppContext, closeContext, createContext } from './kernel/context.js';
import { filesUnder, makeMp4 } from './media/media.testkit.js';
import { TestClock } from './shared/clock.testkit.js';
import { signHlsGrant } from './streaming/hlsSignature.js';
import { signStreamPath } from './streaming/streamSignature.js';
import { postUpload } from './uploads/upload.testkit.js';
import { allProjections } from './wiring/modules.js';

// PostgreSQL is what makes several processes possible; like every PostgreSQL variant, this runs
// wherever TEST_DATABASE_URL is set (always in `pnpm test` and CI, see harness.ts). The object
// store's shape runs wherever the suite's gateway does (in CI always: mediaKinds() fails without it).
for (const media of storeKinds.includes('postgres') ? mediaKinds() : []) {
  describe(`two API processes behind nginx [postgres, ${media}]`, () => {
    let dep: Deployment;
    let base: string;
    let procs: Proc[];
    let apiPorts: number[];
    let videoFile: Buffer;
    let videoId: string;
    let uploadedThrough: string | null;
    let sideCtx: AppContext | undefined;
    /** The store's host and bucket, as nginx's internal location names them (s3 only). */
    let s3Path = '';

    beforeAll(async () => {
      dep = await startDeployment(media);
      ({ base, apiPorts } = dep);
      procs = dep.apis;
      if (dep.bucket) s3Path = `${new URL(TEST_S3?.endpoint as string).host}/${dep.bucket.bucket}`;
      // An admin uploads a clip through nginx (request buffering off, the API's upload route).
      const admin = (await apiClient(base).post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const clipDir = fs.mkdtempSync(path.join(dep.store.dataDir, '..', 'members-deploy-clip-'));
      try {
        const clip = await makeMp4(clipDir, 3);
        videoFile = fs.readFileSync(clip);
        const up = await postUpload(base, admin, { title: 'Behind nginx', duration: '0:03' }, { video: clip });
        expect(up.status).toBe(201);
        videoId = up.body.data.videoId as string;
        uploadedThrough = up.headers.get('x-served-by');
      } finally {
        fs.rmSync(clipDir, { recursive: true, force: true });
      }
    }, 180_000);

    afterAll(async () => {
      if (sideCtx) await closeContext(sideCtx);
      await dep?.stop();
    });

    const servedBy = (res: { headers: Headers }) => res.headers.get('x-served-by');

    it('spreads consecutive requests over both processes', async () => {
      const api = apiClient(base);
      const seen: (string | null)[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await api.get('/health');
        expect(res.status).toBe(200);
        seen.push(servedBy(res));
      }
      expect(new Set(seen)).toEqual(new Set(['api-a', 'api-b']));
      for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
      // Each process reports (to an admin) the media store it uses, and who transcodes: the leader, or the two runners.
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const { media: store, transcode } = (await api.get('/health', admin)).body.data;
      expect(store).toEqual({ kind: media, reachable: true });
      expect(transcode.inServer).toBe(media === 'local');
      expect(transcode.runners.filter((r: { kind: string }) => r.kind === 'runner').length).toBe(media === 's3' ? 2 : 0);
    });

    it('keeps every request of one resumable upload on one process (its tus lock is per process)', async () => {
      const admin = (await apiClient(base).post('/auth/login', TEST_ADMIN)).body.data.token as string;
      for (let u = 0; u < 3; u++) {
        const seen: (string | undefined)[] = [];
        const id = await new Promise<string | undefined>((resolve, reject) => {
          new tus.Upload(videoFile, {
            endpoint: `${base}/api/admin/uploads`,
            chunkSize: Math.ceil(videoFile.length / 4),
            metadata: { filename: 'clip.mp4', title: `Resumable ${u}`, accessLevel: 'free' },
            headers: { Authorization: `Bearer ${admin}` },
            storeFingerprintForResuming: false,
            retryDelays: null,
            // The creation (POST) may go to any process; the upload's own URL decides the rest.
            onAfterResponse: (req, res) => {
              if (req.getMethod() !== 'POST') seen.push(res.getHeader('X-Served-By'));
            },
            onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Upload-Video-Id')),
            onError: reject,
          }).start();
        });
        expect(id).toBeTruthy();
        expect(seen.length).toBeGreaterThanOrEqual(4);
        expect(new Set(seen).size).toBe(1);
        expect(['api-a', 'api-b']).toContain(seen[0]);
      }
    });

    let streamUrl: string;
    let memberId: string;
    let memberToken: string;

    it(`runs the member journey through nginx: register, approve, pay, verify, stream URL, ranges sent by nginx${media === 's3' ? ' from the bucket' : ''}`, async () => {
      const api = apiClient(base);
      const served = new Set<string | null>();
      const email = 'behind-nginx@example.test';
      const password = 'member-password-123';
      const reg = await api.post('/auth/register', {
        email,
        password,
        firstName: 'Nia',
        lastName: 'Proxy',
        dateOfBirth: '1990-05-05',
        agreeToTerms: true,
      });
      expect(reg.status).toBe(201);
      served.add(servedBy(reg));
      memberId = reg.body.data.user.id as string;
      const adminLogin = await api.post('/auth/login', TEST_ADMIN);
      const admin = adminLogin.body.data.token as string;
      // Approved through one process, logged in through the other: the read model is shared.
      const approved = await api.post(`/admin/users/${memberId}/approve`, undefined, admin);
      expect(approved.status).toBe(200);
      const login = await api.post('/auth/login', { email, password });
      expect(login.status).toBe(200);
      expect(servedBy(login)).not.toBe(servedBy(approved));
      const firstToken = login.body.data.token as string;
      // Refresh-token rotation is shared: a token rotated by one process is refused by the other,
      // and reusing it revokes the whole session (reuse detection) there too.
      const cookies = cookiesOf(login.headers);
      const refresh = (c: Record<string, string>) =>
        api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(c), 'x-csrf-token': c.csrf_token ?? '' } });
      const rotated = await refresh(cookies);
      expect(rotated.status).toBe(200);
      const reused = await refresh(cookies);
      expect(reused.status).toBe(401);
      expect(servedBy(reused)).not.toBe(servedBy(rotated));
      expect((await refresh(cookiesOf(rotated.headers))).status).toBe(401);
      // The revoked session's access token is refused at once, by either process.
      for (let i = 0; i < 2; i++) {
        expect((await api.get('/payments/subscription', firstToken)).status).toBe(401);
      }
      const relogin = await api.post('/auth/login', { email, password });
      expect(relogin.status).toBe(200);
      const token = relogin.body.data.token as string;
      memberToken = token;
      const intent = await api.post('/payments/create-subscription-intent', { planType: 'monthly' }, token);
      expect(intent.status).toBe(201);
      const submitted = await api.post(
        '/payments/submit-bitcoin-payment',
        { userId: memberId, planType: 'monthly', btcAmount: intent.body.data.btcAmount, transactionHash: 'b'.repeat(64) },
        token,
      );
      expect(submitted.status).toBe(201);
      // Concurrent verifications spread over both processes: exactly one activation.
      const verifies = await Promise.all(
        Array.from({ length: 6 }, () => api.post(`/admin/payments/${intent.body.data.paymentId}/verify`, undefined, admin)),
      );
      expect(new Set(verifies.map(servedBy))).toEqual(new Set(['api-a', 'api-b']));
      expect(verifies.map((v) => v.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      const verified = verifies.find((v) => v.status === 200) as (typeof verifies)[number];
      const pgc = new pg.Client({ connectionString: dep.store.env.DATABASE_URL });
      await pgc.connect();
      const activations = await pgc.query(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND type = 'SubscriptionActivated'`, [
        `subscription-${memberId}`,
      ]);
      await pgc.end();
      expect(activations.rows[0].n).toBe(1);
      const sub = await api.get('/payments/subscription', token);
      expect(sub.body.data).toMatchObject({ status: 'active', planType: 'monthly' });
      const stream = await api.get(`/videos/${videoId}/stream`, token);
      expect(stream.status).toBe(200);
      // The API's security headers pass through nginx untouched.
      expect(stream.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(stream.headers.get('x-frame-options')).toBe('DENY');
      for (const r of [reg, adminLogin, approved, login, intent, submitted, verified, sub, stream]) served.add(servedBy(r));
      expect(served).toEqual(new Set(['api-a', 'api-b']));
      // The member's progressive file: the MP4 of the tallest rendition within their cap, once the
      // ladder exists (none before: the original is for admins only).
      let info = stream.body.data as { streamUrl: string | null };
      while (!info.streamUrl) {
        await new Promise((r) => setTimeout(r, 500));
        info = (await api.get(`/videos/${videoId}/stream`, token)).body.data;
      }
      // A same-origin path (never an absolute URL from the request's Host), fetched here through nginx.
      expect(info.streamUrl.startsWith(`/api/media/videos/${videoId}?`)).toBe(true);
      streamUrl = `${base}${info.streamUrl}`;
      const fileKey = `videos/${videoId}/hls/${new URL(streamUrl).searchParams.get('r')}/progressive.mp4`;
      const progressiveFile =
        media === 'local'
          ? fs.readFileSync(path.join(dep.store.dataDir, 'media', fileKey))
          : Buffer.from(
              await ((
                await testS3Client().send(new GetObjectCommand({ Bucket: dep.bucket?.bucket, Key: fileKey }))
              ).Body?.transformToByteArray() ?? new Uint8Array()),
            );
      expect(progressiveFile.equals(videoFile)).toBe(false);

      const size = progressiveFile.length;
      const ranges: [number, number][] = [
        [0, 99],
        [1000, 4095],
        [size - 500, size - 1],
      ];
      for (const [start, end] of ranges) {
        const res = await fetch(streamUrl, { headers: { range: `bytes=${start}-${end}` } });
        expect(res.status).toBe(206);
        expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
        expect(res.headers.get('content-type')).toBe('video/mp4');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
        // The bytes come from nginx's internal location (from the disk or the bucket), not from the API.
        expect(res.headers.get('x-media-served-by')).toBe(dep.mediaServedBy);
        expect(Buffer.from(await res.arrayBuffer()).equals(progressiveFile.subarray(start, end + 1))).toBe(true);
      }
      // On the disk, nginx asked the API once for these three ranges: it keeps the decision for the
      // signed URL. From the bucket each range is decided (the presigned URL lives 60 s, not cached).
      const decisions = () =>
        procs
          .map(
            (p) =>
              p
                .output()
                .split('\n')
                .filter((l) => l.includes(`"path":"/api/media/videos/${videoId}"`)).length,
          )
          .reduce((x, y) => x + y);
      // (A process's log line reaches this test through a pipe, possibly after the answer did.)
      const expected = media === 'local' ? 1 : ranges.length;
      await waitFor('the decisions in the logs', async () => (decisions() >= expected ? true : undefined), 5_000);
      expect(decisions()).toBe(expected);
      // The API itself sends no byte: asked directly, it answers the decision only.
      const signed = new URL(streamUrl);
      const decision = await fetch(`http://127.0.0.1:${apiPorts[1]}${signed.pathname}${signed.search}`, {
        headers: { range: 'bytes=0-99' },
      });
      expect(decision.status).toBe(200);
      if (media === 'local') {
        expect(decision.headers.get('x-accel-redirect')).toBe(`/_protected_media/${fileKey}`);
        expect(decision.headers.get('x-media-key')).toBe(fileKey);
        expect(Number(decision.headers.get('x-accel-expires'))).toBeGreaterThan(0);
      } else {
        // A presigned GET of the object, valid for 60 s, for nginx's internal location to follow.
        const target = new URL(decision.headers.get('x-accel-redirect') as string, base);
        expect(target.pathname).toBe(`/_protected_media/http/${s3Path}/${fileKey}`);
        expect([target.searchParams.get('X-Amz-Expires'), target.searchParams.has('X-Amz-Signature')]).toEqual(['60', true]);
      }
      expect((await decision.arrayBuffer()).byteLength).toBe(0);
      const full = await fetch(streamUrl);
      expect(full.status).toBe(200);
      expect(Number(full.headers.get('content-length'))).toBe(size);
      expect(Buffer.from(await full.arrayBuffer()).equals(progressiveFile)).toBe(true);
    });

    it('pushes chat replies through nginx to the member’s WebSocket, whichever process each reply lands on', async () => {
      const api = apiClient(base);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const ticket = (await api.post('/chat/ticket', undefined, memberToken)).body.data.ticket as string;
      const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/chat/socket?ticket=${ticket}`, { headers: { origin: base } });
      const received: string[] = [];
      ws.addEventListener('message', (e) => received.push((JSON.parse(String(e.data)) as { message: { text: string } }).message.text));
      await new Promise<void>((resolve, reject) => {
        ws.addEventListener('open', () => resolve());
        ws.addEventListener('error', () => reject(new Error('the chat socket did not open through nginx')));
      });
      try {
        const servers = new Set<string | null>();
        for (let i = 0; i < 4; i++) {
          const r = await api.post(`/admin/chat/conversations/${memberId}/messages`, { text: `through nginx ${i}` }, admin);
          expect(r.status).toBe(201);
          servers.add(servedBy(r));
        }
        // Round robin: the replies were taken by both processes, and the socket (held by one) got them all.
        expect(servers.size).toBe(2);
        await waitFor('four pushes', async () => (received.length >= 4 ? true : undefined), 5000);
        // Every reply, once each. Not necessarily in order: a reply taken by the socket's own process
        // is pushed at once, one from the other process comes through NOTIFY and can be overtaken
        // (seen: 0, 2, 1, 3); the pages place each push by its time (ChatThread's withMessage).
        expect([...received].sort()).toEqual(['through nginx 0', 'through nginx 1', 'through nginx 2', 'through nginx 3']);
      } finally {
        ws.close();
      }
    });

    it(`streams the HLS ladder through nginx: segments from its internal location, playlists and key from the API${media === 's3' ? ' (transcoded by a runner)' : ''}`, async () => {
      const api = apiClient(base);
      // The leader (or, on the object store, a runner) transcodes the upload in the background (a 160×120 clip: one rendition).
      let hls: { hlsUrl: string | null } = { hlsUrl: null };
      while (!hls.hlsUrl) {
        hls = (await api.get(`/videos/${videoId}/stream`, memberToken)).body.data;
        if (!hls.hlsUrl) await new Promise((r) => setTimeout(r, 500));
      }
      expect(hls.hlsUrl.startsWith(`/api/hls/${videoId}/master.m3u8?`)).toBe(true);
      const hlsUrl = `${base}${hls.hlsUrl}`;
      const masterRes = await fetch(hlsUrl);
      const master = await masterRes.text();
      const mediaUrl = new URL(master.split('\n').find((l) => /^\d+p\/index\.m3u8\?/.test(l)) as string, hlsUrl);
      const playlist = await fetch(mediaUrl);
      expect(playlist.headers.get('x-media-served-by')).toBeNull();
      // Played through both processes, whichever one the upload went through.
      expect(new Set([servedBy(masterRes), servedBy(playlist)])).toEqual(new Set(['api-a', 'api-b']));
      const text = await playlist.text();
      const segment = new URL(text.split('\n').find((l) => l.startsWith('../segments/')) as string, mediaUrl);
      const seg = await fetch(segment);
      expect([seg.status, seg.headers.get('x-media-served-by'), seg.headers.get('content-type')]).toEqual([
        200,
        dep.mediaServedBy,
        'video/mp2t',
      ]);
      if (media === 's3') expect(seg.headers.get('x-cache-status')).toBe('MISS');
      // Encrypted segments may be kept by shared caches; the per-viewer playlist may not.
      expect(seg.headers.get('cache-control')).toBe('public, max-age=3600, no-transform');
      expect(playlist.headers.get('cache-control')).toBe('private, no-store');
      const [rendition, file] = (segment.pathname.split('/').pop() as string).split('-') as [string, string];
      const objectKey = `videos/${videoId}/hls/${rendition}/${file}`;
      const stored =
        media === 'local'
          ? fs.readFileSync(path.join(dep.store.dataDir, 'media', objectKey))
          : Buffer.from(
              await ((
                await testS3Client().send(new GetObjectCommand({ Bucket: dep.bucket?.bucket, Key: objectKey }))
              ).Body?.transformToByteArray() ?? new Uint8Array()),
            );
      expect(stored.length).toBeGreaterThan(0);
      expect(Buffer.from(await seg.arrayBuffer()).equals(stored)).toBe(true);
      const key = await fetch(new URL(/URI="([^"]+)"/.exec(text)?.[1] as string, mediaUrl));
      expect([key.status, key.headers.get('cache-control'), key.headers.get('x-media-served-by')]).toEqual([200, 'no-store', null]);
      expect((await key.arrayBuffer()).byteLength).toBe(16);
      // No signature, or the internal location asked directly: nothing.
      const bare = new URL(segment);
      bare.search = '';
      expect((await fetch(bare)).status).toBe(403);
      const internal = await fetch(`${base}/_protected_media/${media === 's3' ? `http/${s3Path}/` : ''}${objectKey}`);
      expect(internal.status).toBe(404);
      if (media === 'local') return;

      // Another grant for the same segment (signed as the server signs them, a minute later: another
      // signed URL): from nginx's cache, not from the bucket again.
      const env = parseEnv({ ...process.env, TOKEN_SECRET, DATA_DIR: dep.store.dataDir });
      const maxHeight = Number(new URL(hlsUrl).searchParams.get('m'));
      const adminHls = `${base}/api/hls/${videoId}/master.m3u8?${signHlsGrant({ env, clock: new TestClock(new Date(Date.now() + 60_000)) }, videoId, memberId, maxHeight).query}`;
      const adminMaster = await (await fetch(adminHls)).text();
      const adminMedia = new URL(adminMaster.split('\n').find((l) => l.startsWith(`${rendition}/index.m3u8?`)) as string, adminHls);
      const adminText = await (await fetch(adminMedia)).text();
      const adminSegment = new URL(
        adminText.split('\n').find((l) => l.startsWith(`../segments/${rendition}-${file}?`)) as string,
        adminMedia,
      );
      expect(adminSegment.search).not.toBe(segment.search);
      const cached = await fetch(adminSegment);
      expect([cached.status, cached.headers.get('x-cache-status')]).toEqual([200, 'HIT']);
      expect(Buffer.from(await cached.arrayBuffer()).equals(stored)).toBe(true);

      // Uploaded through one process, transcoded by one of the runners (the API processes do not
      // transcode), played through both.
      // (The runner logs the job's end after recording it: its line may come after the ladder is served.)
      const transcodedBy = await waitFor(
        "the runner's line for the job",
        async () => {
          const by = dep.runners.filter((r) => r.output().includes(`transcode of ${videoId} completed`));
          return by.length > 0 ? by : undefined;
        },
        10_000,
      );
      expect(transcodedBy.length).toBe(1);
      expect(['api-a', 'api-b']).toContain(uploadedThrough);
      for (const p of procs) {
        expect(p.output()).not.toContain('transcode runner started');
        expect(p.output()).not.toContain(`transcode of ${videoId} completed`);
      }
      // The bucket holds the video; no disk of any process keeps a file of it.
      const keys = await bucketKeys(dep.bucket?.bucket as string, `videos/${videoId}/`);
      expect(keys).toEqual(expect.arrayContaining([`videos/${videoId}/video.mp4`, `videos/${videoId}/hls/master.m3u8`, objectKey]));
      for (const dir of dep.apiDataDirs) expect(filesUnder(path.join(dir, 'media'))).toEqual([]);
      for (const dir of dep.runnerHomes) expect(filesUnder(dir).filter((f) => f.includes(videoId))).toEqual([]);
    });

    it('serves public thumbnails from its cache', async () => {
      const url = `${base}/api/videos/${videoId}/thumbnail`;
      const first = await fetch(url);
      expect(first.status).toBe(200);
      const firstBody = Buffer.from(await first.arrayBuffer());
      const second = await fetch(url);
      expect([second.status, second.headers.get('x-cache-status')]).toEqual([200, 'HIT']);
      expect(Buffer.from(await second.arrayBuffer()).equals(firstBody)).toBe(true);
      expect(second.headers.get('x-served-by')).toBe(first.headers.get('x-served-by'));
    });

    it('refuses every media file requested without a valid signature', async () => {
      const good = new URL(streamUrl);
      const q = good.searchParams;
      const other = await apiClient(base).post('/auth/register', {
        email: 'other-member@example.test',
        password: 'member-password-123',
        firstName: 'Oda',
        lastName: 'Other',
        dateOfBirth: '1990-05-05',
        agreeToTerms: true,
      });
      const otherId = other.body.data.user.id as string;
      const env = parseEnv({ ...process.env, TOKEN_SECRET, DATA_DIR: dep.store.dataDir });
      const expired = signStreamPath(
        { env, clock: new TestClock(new Date(Date.now() - 3 * 3600_000)) },
        videoId,
        memberId,
        'original',
      ).path;
      const fresh = (u: string) => signStreamPath({ env, clock: new TestClock(new Date()) }, videoId, u, 'original').path;
      const key = `videos/${videoId}/video.mp4`;
      const attempts: Record<string, string> = {
        'the internal location directly': `/_protected_media/${key}`,
        'the internal location, percent-encoded': `/%5Fprotected_media/${key}`,
        'the internal location with a valid query': `/_protected_media/${key}?${q}`,
        'a path under DATA_DIR': `/media/${key}`,
        'DATA_DIR itself': `/data/media/${key}`,
        'the storage key as a path': `/${key}`,
        'the API media route with the key': `/api/media/${key}`,
        'no signature': `/api/media/videos/${videoId}`,
        'a guessed id with a valid signature for another id': `/api/media/videos/00000000-0000-4000-8000-000000000000?${q}`,
        'an expired URL': expired,
        "another member's id on this member's signature": `/api/media/videos/${videoId}?u=${otherId}&e=${q.get('e')}&r=${q.get('r')}&s=${q.get('s')}`,
        'a tampered signature': `/api/media/videos/${videoId}?u=${q.get('u')}&e=${q.get('e')}&r=${q.get('r')}&s=${'A'.repeat(43)}`,
        'a moved expiry': `/api/media/videos/${videoId}?u=${q.get('u')}&e=${Number(q.get('e')) + 3600}&r=${q.get('r')}&s=${q.get('s')}`,
        "a member's own signature for the original (members get renditions)": fresh(memberId),
        'a signature made with another secret': fresh(q.get('u') as string).replace(/s=[^&]+/, `s=${'x'.repeat(43)}`),
        'a path traversal into the internal location': `/api/media/../_protected_media/${key}`,
        ...(media === 's3' && {
          "the object store's internal location directly": `/_protected_media/http/${s3Path}/${key}`,
          "the object store's internal location, percent-encoded": `/%5Fprotected_media/http/${s3Path}/${key}`,
          'the bucket as a path': `/${dep.bucket?.bucket}/${key}`,
        }),
      };
      for (const [what, p] of Object.entries(attempts)) {
        const res = await fetch(`${base}${p}`, { headers: { range: 'bytes=0-99' } });
        const body = Buffer.from(await res.arrayBuffer());
        expect({ what, status: res.status >= 400 }).toEqual({ what, status: true });
        expect({ what, fromNginx: res.headers.get('x-media-served-by') }).toEqual({ what, fromNginx: null });
        expect({ what, leaked: body.length > 0 && videoFile.subarray(0, body.length).equals(body) }).toEqual({ what, leaked: false });
      }
      // And the admin's signed URL still works for anyone holding it (it is the capability).
      expect((await fetch(streamUrl, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
    });

    it('counts failed logins in PostgreSQL: after 5 from one address, alternating between the processes, the address waits', async () => {
      const api = apiClient(base);
      const statuses: number[] = [];
      const served: (string | null)[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 7; i++) {
        const res = await api.post('/auth/login', { email: 'behind-nginx@example.test', password: `wrong-password-${i}` });
        statuses.push(res.status);
        served.push(servedBy(res));
        retryAfter ??= res.headers.get('retry-after');
      }
      // LOGIN_FAILURES_PER_ADDRESS (5) free failures, then backoff: 429 with Retry-After.
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < served.length; i++) expect(served[i]).not.toBe(served[i - 1]);
    });

    it('hands the time-driven work to the other process when the leader is killed', async () => {
      const [a, b] = procs as [Proc, Proc];
      expect(a.output()).toMatch(/leadership acquired/);
      expect(b.output()).not.toMatch(/leadership acquired/);

      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));

      // A subscription whose month ended long ago, activated in the past by a side context.
      const past = new TestClock(new Date(Date.now() - 90 * 24 * 3600_000));
      const env = parseEnv({
        ...process.env,
        TOKEN_SECRET,
        DATA_KEY_SECRET,
        DATA_DIR: dep.store.dataDir,
        DATABASE_URL: dep.store.env.DATABASE_URL,
        LOG_LEVEL: 'silent',
        ...dep.mediaEnv,
      });
      sideCtx = await createContext(env, exampleSiteConfig(), allProjections(), { clock: past });
      const lapsed = await apiClient(base).post('/auth/register', {
        email: 'lapsed@example.test',
        password: 'member-password-123',
        firstName: 'Lia',
        lastName: 'Lapsed',
        dateOfBirth: '1990-05-05',
        agreeToTerms: true,
      });
      expect(servedBy(lapsed)).toBe('api-b');
      const lapsedId = lapsed.body.data.user.id as string;
      await applyVerifiedPayment(
        sideCtx,
        { paymentId: 'deploy-test-old-payment', userId: lapsedId, planType: 'monthly', amountSats: 1000 },
        { actorId: null, actor: 'deploy-test', at: past.now().toISOString() },
      );
      const ctx = sideCtx;
      const status = await waitFor(
        'the survivor to advance the lapsed subscription',
        async () => {
          const row = await ctx.db.get<{ status: string }>('SELECT status FROM billing_subscriptions WHERE user_id = ?', [lapsedId]);
          return row && row.status !== 'active' ? row.status : undefined;
        },
        // Bounded only to catch a hang (the takeover's time is bench/leader.ts's figure).
        45_000,
      );
      expect(['past_due', 'unpaid', 'expired']).toContain(status);
      expect(b.output()).toMatch(/leadership acquired/);
      // nginx skips the dead process: the site keeps answering.
      const health = await apiClient(base).get('/health');
      expect([health.status, servedBy(health)]).toEqual([200, 'api-b']);
    });

    it('counts auth requests per client address, whatever X-Forwarded-For the client sends', async () => {
      const round = async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 61; i++) {
          const res = await fetch(`${base}/api/auth/reset-password`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i}` },
            body: JSON.stringify({ email: 'nobody@example.test' }),
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        return statuses;
      };
      const limited = (statuses: number[]) => statuses.includes(429) && statuses.slice(statuses.indexOf(429)).every((s) => s === 429);
      // 60 a minute from 127.0.0.1, the earlier tests' auth requests included: forged addresses do not reset it.
      // The minute is a fixed window on the servers' real clock, begun by an earlier request: when it ends
      // during the round, the round is counted in two windows. The next round then lies in the new one
      // (which already holds part of the first) and must be refused from some request on to its end.
      let statuses = await round();
      if (!limited(statuses)) statuses = await round();
      expect(statuses).toContain(429);
      expect(statuses.slice(statuses.indexOf(429)).every((s) => s === 429)).toBe(true);
    });
  });
}
