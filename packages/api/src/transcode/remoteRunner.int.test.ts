/**
 * Remote transcode runners as least-privilege HTTP clients: the real CLI entry point started with a
 * clean environment (PATH, HOME and RUNNER_TOKEN only; `env -i` style) and `--server` pointing at a
 * real API server that transcodes nothing itself (TRANSCODE_CONCURRENCY=0). The runner claims the
 * upload's job, reads the original and writes the ladder through the short-lived URLs the server
 * hands out, and the video becomes ready with its master playlist served, on each store and media
 * store. Then the attacker's side, on the production configuration: a wrong or revoked token ends a
 * runner with a message and exit 1 and cannot claim or upload; a runner token opens no member or
 * admin route (and their tokens no runner route); a job's upload URL cannot write another video's files.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/childServer';
import { freshStore, storeKinds } from '../../test/harness';
import {
  adminToken,
  apiClient,
  makeSizedClip,
  mediaKinds,
  postUpload,
  startTestServer,
  type TestServer,
  tmpDir,
  waitTranscoded,
} from '../../test/support';
import { spawnTokenRunner } from './runners.testkit';
import { createRunnerToken, revokeRunnerToken } from './runnerTokens';

interface RunnerProc {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** A token runner (runners.testkit.ts) with its standard output and error apart. */
function spawnRunner(server: string, token: string | undefined, home: string): RunnerProc {
  const child = spawnTokenRunner(server, token, home);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const runnerCall = (server: TestServer, route: string, token: string, body: unknown) =>
  fetch(`${server.url}/api/runners/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

for (const kind of storeKinds) {
  for (const media of mediaKinds()) {
    describe(`a runner with only --server and RUNNER_TOKEN [${kind}, ${media}]`, () => {
      let server: TestServer;
      let admin: string;
      let home: string;
      const procs: RunnerProc[] = [];

      beforeAll(async () => {
        server = await startTestServer(kind, {
          media,
          env: {
            NODE_ENV: 'production',
            REQUIRE_ADMIN_2FA: 'false',
            TRANSCODE_CONCURRENCY: '0',
            TRANSCODE_PRESET: 'ultrafast',
            TRANSCODE_LEASE_SECONDS: '3',
          },
        });
        admin = await adminToken(server);
        home = tmpDir('members-runner-home-');
      }, 120_000);

      afterAll(async () => {
        for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
        await Promise.all(procs.map((p) => p.exited));
        await server?.close();
        if (home) fs.rmSync(home, { recursive: true, force: true });
      });

      it('transcodes an upload to playable HLS; the runner process holds no database, secret or store credential', async () => {
        const made = await createRunnerToken(server.ctx.db, 'box-1', server.clock.now().toISOString());
        if (!made.ok) throw new Error(made.error);
        const clip = await makeSizedClip(home, { width: 640, height: 360, seconds: 3 });
        const up = await postUpload(server.url, admin, { title: 'Remote runner clip', accessLevel: 'free' }, { video: clip });
        expect(up.status).toBe(201);
        const videoId = up.body.data.videoId as string;

        const runner = spawnRunner(server.url, made.token, home);
        procs.push(runner);
        await until(() => /Transcode runner \S+ running 1 at once .*token: box-1/.test(runner.out()) || undefined, 'the runner to start');
        // Its whole environment: nothing of the site's.
        const environ = fs.readFileSync(`/proc/${runner.child.pid}/environ`, 'utf8').split('\0').filter(Boolean);
        expect(environ.map((e) => e.slice(0, e.indexOf('='))).sort()).toEqual(['HOME', 'PATH', 'RUNNER_TOKEN']);

        await waitTranscoded(server.url, admin, videoId);
        const api = apiClient(server.url);
        const stream = (await api.get(`/videos/${videoId}/stream`, admin)).body.data;
        expect(stream.hlsUrl).toBeTruthy();
        const master = await fetch(new URL(stream.hlsUrl, server.url));
        expect(master.status).toBe(200);
        const text = await master.text();
        expect(text).toContain('#EXTM3U');
        expect(text).toMatch(/360p\/index\.m3u8/);
        const files = await server.ctx.media.listVideo(videoId);
        expect(files).toEqual(expect.arrayContaining([`videos/${videoId}/hls/master.m3u8`, `videos/${videoId}/hls/360p/progressive.mp4`]));

        // The admin console's list: the runner with its token's name, and the token's last contact.
        const listed = (await api.get('/admin/runners', admin)).body.data;
        expect(listed.tokens).toEqual([expect.objectContaining({ name: 'box-1', revokedAt: null, lastUsedAt: expect.any(String) })]);
        expect(listed.runners).toEqual([expect.objectContaining({ kind: 'runner', tokenName: 'box-1', heartbeatAt: expect.any(String) })]);

        // SIGTERM: it leaves the list and exits 0.
        runner.child.kill('SIGTERM');
        expect(await runner.exited).toBe(0);
        expect((await api.get('/admin/runners', admin)).body.data.runners).toEqual([]);
      }, 180_000);

      it('a job’s upload URL writes that job’s ladder only; a runner token opens no other route', async () => {
        const made = await createRunnerToken(server.ctx.db, 'attacker', server.clock.now().toISOString());
        if (!made.ok) throw new Error(made.error);
        const clip = await makeSizedClip(home, { width: 320, height: 240, seconds: 1 });
        const a = (await postUpload(server.url, admin, { title: 'A', accessLevel: 'free' }, { video: clip })).body.data.videoId as string;
        const b = (await postUpload(server.url, admin, { title: 'B', accessLevel: 'free' }, { video: clip })).body.data.videoId as string;
        const claimed = await until(async () => {
          const r = (await (await runnerCall(server, 'jobs/claim', made.token, { runnerId: 'evil:1:0000' })).json()) as {
            data: { job: any };
          };
          return r.data.job ?? undefined;
        }, 'a claim');
        const other = claimed.videoId === a ? b : a;
        const ref = { runnerId: 'evil:1:0000', claimAttempt: claimed.claimAttempt };
        const uploads = (await (
          await runnerCall(server, `jobs/${claimed.videoId}/uploads`, made.token, { ...ref, files: ['master.m3u8'] })
        ).json()) as {
          data: { uploads: { url: string }[] };
        };
        const url = new URL(uploads.data.uploads[0]?.url as string, server.url);
        const put = (u: URL) =>
          fetch(u, { method: 'PUT', body: '#EXTM3U\n', headers: { 'content-type': 'application/vnd.apple.mpegurl' } });
        // Another video's ladder with this job's signature: refused, nothing written.
        // (the local store's signed route, or the bucket's presigned PUT: the signature covers the key)
        const forged = new URL(url.toString().replace(`/${claimed.videoId}/`, `/${other}/`));
        expect((await put(forged)).status).toBe(403);
        // Outside the ladder, or a tampered signature: refused.
        expect((await put(new URL(url.toString().replace('/hls/master.m3u8', '/hls/..%2Fvideo.mp4')))).status).toBeGreaterThanOrEqual(400);
        const badSig = new URL(url);
        badSig.searchParams.set(media === 's3' ? 'X-Amz-Signature' : 's', media === 's3' ? '0'.repeat(64) : 'x'.repeat(43));
        expect((await put(badSig)).status).toBe(403);
        expect((await put(url)).status).toBe(200);
        const keys = await server.ctx.media.listVideo(other);
        expect(keys.filter((k) => k.includes('/hls/'))).toEqual([]);
        // Another runner of another token cannot act on this claim.
        const second = await createRunnerToken(server.ctx.db, 'other-box', server.clock.now().toISOString());
        if (!second.ok) throw new Error(second.error);
        expect((await runnerCall(server, `jobs/${claimed.videoId}/uploads`, second.token, { ...ref, files: ['master.m3u8'] })).status).toBe(
          409,
        );

        // A runner token on member and admin routes, and member/admin tokens on runner routes: 401.
        for (const p of ['/api/admin/videos', '/api/admin/runners', '/api/users/profile', `/api/videos/${other}/stream`]) {
          const r = await fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${made.token}` } });
          expect([p, r.status]).toEqual([p, 401]);
        }
        expect((await runnerCall(server, 'jobs/claim', admin, { runnerId: 'admin:1:0000' })).status).toBe(401);
        expect(
          (
            await fetch(`${server.url}/api/runners/jobs/claim`, {
              method: 'POST',
              body: '{}',
              headers: { 'content-type': 'application/json' },
            })
          ).status,
        ).toBe(401);

        // Revoked: it can neither claim, renew, nor get upload URLs; a runner started with it stops with a message.
        expect(await revokeRunnerToken(server.ctx.db, 'attacker', server.clock.now().toISOString())).toBe(true);
        for (const [route, body] of [
          ['jobs/claim', { runnerId: 'evil:1:0000' }],
          [`jobs/${claimed.videoId}/uploads`, { ...ref, files: ['master.m3u8'] }],
          ['heartbeat', { runnerId: 'evil:1:0000', concurrency: 1, startedAt: new Date().toISOString(), jobs: [] }],
        ] as const) {
          const r = await runnerCall(server, route, made.token, body);
          expect([route, r.status, ((await r.json()) as { error: string }).error]).toEqual([route, 401, 'Invalid or revoked runner token']);
        }
        const revoked = spawnRunner(server.url, made.token, home);
        procs.push(revoked);
        expect(await revoked.exited).toBe(1);
        expect(revoked.err()).toMatch(/refused RUNNER_TOKEN \(Invalid or revoked runner token\)/);
        const wrong = spawnRunner(server.url, 'rnr_not-a-token', home);
        procs.push(wrong);
        expect(await wrong.exited).toBe(1);
        expect(wrong.err()).toMatch(/refused RUNNER_TOKEN/);
        const none = spawnRunner(server.url, undefined, home);
        procs.push(none);
        expect(await none.exited).toBe(2);
        expect(none.err()).toMatch(/RUNNER_TOKEN is not set/);
      }, 120_000);

      it.runIf(media === 'local')(
        'a running runner whose token is revoked stops at its next heartbeat, exit 1',
        async () => {
          const made = await createRunnerToken(server.ctx.db, 'soon-revoked', server.clock.now().toISOString());
          if (!made.ok) throw new Error(made.error);
          const runner = spawnRunner(server.url, made.token, home);
          procs.push(runner);
          await until(() => /Transcode runner \S+ running/.test(runner.out()) || undefined, 'the runner to start');
          await revokeRunnerToken(server.ctx.db, 'soon-revoked', server.clock.now().toISOString());
          expect(await runner.exited).toBe(1);
          expect(runner.err()).toMatch(/refused RUNNER_TOKEN/);
        },
        60_000,
      );
    });
  }
}

const firstStore = storeKinds[0] ?? 'sqlite';

describe(`a token runner marks the ladder when the site does (FORENSIC_WATERMARK) [${firstStore}]`, () => {
  let server: TestServer;
  let home: string;
  let runner: RunnerProc | undefined;

  beforeAll(async () => {
    server = await startTestServer(firstStore, {
      env: { FORENSIC_WATERMARK: 'true', TRANSCODE_CONCURRENCY: '0', TRANSCODE_PRESET: 'ultrafast', TRANSCODE_LEASE_SECONDS: '3' },
    });
    home = tmpDir('members-runner-home-');
  }, 120_000);

  afterAll(async () => {
    if (runner && runner.child.exitCode === null && runner.child.signalCode === null) runner.child.kill('SIGKILL');
    await runner?.exited;
    await server?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('writes every rendition in A and B variants and the detector’s reference frames, as the leader would', async () => {
    const admin = await adminToken(server);
    const made = await createRunnerToken(server.ctx.db, 'marking', server.clock.now().toISOString());
    if (!made.ok) throw new Error(made.error);
    const clip = await makeSizedClip(home, { width: 640, height: 360, seconds: 3 });
    const up = await postUpload(server.url, admin, { title: 'Marked by a runner', accessLevel: 'free' }, { video: clip });
    expect(up.status).toBe(201);
    const videoId = up.body.data.videoId as string;
    runner = spawnRunner(server.url, made.token, home);
    await waitTranscoded(server.url, admin, videoId);
    const files = await server.ctx.media.listVideo(videoId);
    const hls = `videos/${videoId}/hls`;
    // Variant B beside every segment of variant A, and what `pnpm cli watermark identify` compares a copy against.
    const a = files.filter((f) => /\/seg_\d+\.ts$/.test(f));
    expect(a.length).toBeGreaterThan(0);
    for (const f of a) expect(files).toContain(f.replace(/\.ts$/, 'b.ts'));
    expect(files).toEqual(
      expect.arrayContaining([`${hls}/watermark/ref.json`, `${hls}/watermark/ref-a.gray`, `${hls}/watermark/ref-b.gray`]),
    );
    // A marked ladder has no progressive file (a member's copy of it would carry no mark).
    expect(files.filter((f) => f.endsWith('progressive.mp4'))).toEqual([]);
  }, 180_000);
});

describe('pnpm cli runners token create | list | revoke', () => {
  it('prints a token once, lists it with its dates, revokes it', async () => {
    const store = await freshStore('sqlite');
    try {
      const env = store.env as Record<string, string>;
      const made = await runCli(env, ['runners', 'token', 'create', 'transcoder-1']);
      expect(made.code).toBe(0);
      const token = /rnr_[A-Za-z0-9_-]{43}/.exec(made.out)?.[0];
      expect(token).toBeDefined();
      expect((await runCli(env, ['runners', 'token', 'create', 'transcoder-1'])).code).toBe(1);
      const listed = await runCli(env, ['runners', 'token', 'list']);
      expect(listed.out).toMatch(/^transcoder-1\t\S+\t-\t-$/m);
      expect(listed.out).not.toContain(token);
      expect((await runCli(env, ['runners', 'token', 'revoke', 'transcoder-1'])).out).toContain('Runner token "transcoder-1" revoked.');
      expect((await runCli(env, ['runners', 'token', 'list'])).out).toMatch(/^transcoder-1\t\S+\t-\t\d{4}-/m);
      expect((await runCli(env, ['runners', 'token', 'revoke', 'transcoder-1'])).code).toBe(1);
    } finally {
      await store.cleanup();
    }
  }, 120_000);
});
