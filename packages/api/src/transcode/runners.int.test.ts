/**
 * Transcode runners as an operator runs them on other machines, on PostgreSQL: an API process with
 * TRANSCODE_IN_SERVER=false and `pnpm cli transcode-runner --server URL` processes (the real CLI
 * entry point, child processes) holding only PATH, HOME and a RUNNER_TOKEN made with
 * `pnpm cli runners token create`, with a 3 s lease. An uploaded video waits in the queue (the API
 * does not transcode it); the runner that claims it reaches the API through a relay the test
 * controls, which stops passing bytes halfway through the original, so the runner is certainly
 * mid-job (claimed, its attempt started, the source half read) when the test SIGKILLs it on any
 * machine. Another runner takes the job once the lease has passed, starts a new attempt and
 * completes it, and ffprobe plays the result through the API. /api/health and /metrics show the
 * queue and both runners' heartbeats; SIGTERM stops the survivor cleanly and removes it from the
 * list. A runner stopped with SIGTERM mid-job gives its job back: another runner completes it at
 * once, although the stopped runner's lease (10 minutes) has not passed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, launchServer, runCli } from '../../test/childServer';
import { apiClient, type FreshStore, freshStore, storeKinds, TEST_ADMIN, tmpDir } from '../../test/harness';
import { mediaBinaries } from '../media/ffmpeg';
import { makeSizedClip } from '../media/media.testkit';
import { type Relay, relay } from '../media/relay.testkit';
import { postUpload } from '../uploads/upload.testkit';
import { jobEnded, killAll, type Runner, startTokenRunner, waitFor } from './runners.testkit';

const run = promisify(execFile);
const METRICS_TOKEN = 'runners-test-metrics-token';

/** A runner token made as the operator makes one. */
async function makeToken(env: Record<string, string>, name: string): Promise<string> {
  const made = await runCli(env, ['runners', 'token', 'create', name]);
  const token = /rnr_[A-Za-z0-9_-]{43}/.exec(made.out)?.[0];
  if (made.code !== 0 || !token) throw new Error(`runners token create: ${made.code}\n${made.out}`);
  return token;
}

for (const kind of storeKinds.filter((k) => k === 'postgres')) {
  describe(`transcode runners on other machines, with a token only [${kind}]`, () => {
    let store: FreshStore;
    let server: ChildServer;
    const runners: Runner[] = [];
    const relays: Relay[] = [];
    let env: Record<string, string>;
    let token: string;
    let home: string;

    beforeAll(async () => {
      store = await freshStore('postgres');
      env = {
        ...(store.env as Record<string, string>),
        TRANSCODE_IN_SERVER: 'false',
        // Would transcode if TRANSCODE_IN_SERVER did not stop it.
        TRANSCODE_CONCURRENCY: '1',
        TRANSCODE_PRESET: 'ultrafast',
        TRANSCODE_LEASE_SECONDS: '3',
        LOG_LEVEL: 'info',
        METRICS_TOKEN,
      };
      server = await launchServer(env);
      token = await makeToken(env, 'failover');
      home = tmpDir('members-runners-home-');
    }, 120_000);

    // A test's runners end with it, however it ends: one left running would take the next test's job.
    afterEach(async () => {
      await killAll(runners.splice(0));
      for (const r of relays.splice(0)) await r.close();
    });
    afterAll(async () => {
      await killAll([...runners, server]);
      await store?.cleanup();
      if (home) fs.rmSync(home, { recursive: true, force: true });
    });

    /** A runner's own home (its scratch inside), as on a machine of its own; removed with the others after the suite. */
    const machine = () => fs.mkdtempSync(path.join(home, 'runner-'));

    /** Uploads a 3 s 640×360 clip and waits until the API has queued it; the clip's size in bytes. */
    async function queuedUpload(api: ReturnType<typeof apiClient>, admin: string, title: string) {
      const clip = await makeSizedClip(store.dataDir, { width: 640, height: 360, seconds: 3 });
      const up = await postUpload(server.url, admin, { title, accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      const queued = await waitFor(async () => {
        const h = (await api.get('/health', admin)).body.data.transcode;
        return h.queued === 1 ? h : undefined;
      });
      // The API queues it and leaves it there: it runs no runner of its own.
      expect(queued).toMatchObject({ inServer: false, queued: 1, running: 0 });
      return { videoId, bytes: fs.statSync(clip).size };
    }

    /** A runner whose connection to the API stalls halfway through the original it downloads. */
    async function stalledRunner(target: string, sourceBytes: number): Promise<{ runner: Runner; link: Relay }> {
      const link = await relay(new URL(target));
      relays.push(link);
      // Before the original, the runner reads a heartbeat's and a claim's answers (about 2 kB): half
      // the original is well past them and well before its end.
      link.holdAfter(Math.floor(sourceBytes / 2));
      const runner = await startTokenRunner(link.url, token, machine());
      runners.push(runner);
      await waitFor(async () => (link.isHeld() ? true : undefined));
      return { runner, link };
    }

    it('refuses a runner that would run nothing, one without its token, or one without --server, with a message naming the setting', async () => {
      for (const args of [
        ['--concurrency', '0'],
        ['--concurrency', 'two'],
      ]) {
        const r = await runCli({ ...env, RUNNER_TOKEN: token }, ['transcode-runner', '--server', server.url, ...args]);
        expect([r.code, r.out.trim()]).toEqual([
          2,
          "--concurrency must be a whole number from 1 to 64: the transcodes this runner runs at once (default 1; TRANSCODE_CONCURRENCY is the API leader's, not a runner's).",
        ]);
      }
      const r = await runCli({ ...env, RUNNER_TOKEN: '' }, ['transcode-runner', '--server', server.url]);
      expect([r.code, r.out.trim()]).toEqual([
        2,
        'RUNNER_TOKEN is not set: make one on a server machine with "pnpm cli runners token create NAME", or on the admin dashboard (Transcode runners).',
      ]);
      // The former runner with the site's whole context (DATABASE_URL, secrets, store credentials) is gone:
      // refused before it reads any of it, with the way that replaced it.
      const full = await runCli(env, ['transcode-runner']);
      expect(full.code).toBe(2);
      expect(full.out).toContain('pnpm cli transcode-runner needs --server URL');
      expect(full.out).toContain('RUNNER_TOKEN=rnr_… pnpm cli transcode-runner --server https://your.site');
      expect(full.out).toContain('pnpm cli runners token create NAME');
      expect(full.out).not.toMatch(/Transcode runner \S+ running/);
    });

    it('a token runner SIGKILLed mid-job loses the job to another runner after the lease, which completes it', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const { videoId, bytes } = await queuedUpload(api, admin, 'Runner clip');

      const { runner: killed } = await stalledRunner(server.url, bytes);
      const claimed = (await api.get('/health', admin)).body.data.transcode;
      expect(claimed).toMatchObject({ queued: 0, running: 1 });
      const holder = claimed.runners.find((r: { id: string }) => r.id.includes(`:${killed.pid}:`));
      expect(holder).toMatchObject({ kind: 'runner', jobs: 1 });
      killed.child.kill('SIGKILL');
      await killed.exited;

      // Another runner, on another machine's scratch, takes the job once the 3 s lease has passed and completes a new attempt.
      const survivor = await startTokenRunner(server.url, token, machine());
      runners.push(survivor);
      const completed = await waitFor(async () => {
        const v = (await api.get(`/admin/videos/${videoId}`, admin)).body.data;
        return v.transcode.status === 'completed' || v.transcode.status === 'failed' ? v.transcode : undefined;
      });
      expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
      expect(survivor.output()).toContain(`claimed ${videoId} (claim 2, attempt 2`);
      await jobEnded(survivor, videoId, 'completed');
      // Attempt 1 (the killed runner's) left only its start; attempt 2 started over and completed.
      const db = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await db.connect();
      try {
        const events = await db.query<{ type: string; data: string }>(
          'SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version',
          [`transcode-${videoId}`],
        );
        const attempts = events.rows
          .filter((e) => e.type !== 'TranscodeProgressed')
          .map((e) => `${e.type} ${(typeof e.data === 'string' ? JSON.parse(e.data) : e.data).attempt}`);
        expect(attempts).toEqual(['TranscodeStarted 1', 'TranscodeStarted 2', 'TranscodeCompleted 2']);
      } finally {
        await db.end();
      }

      // Playable: ffprobe reads the signed master playlist, keys and encrypted segments through the API.
      const stream = (await api.get(`/videos/${videoId}/stream`, admin)).body.data;
      const { stdout } = await run(
        mediaBinaries().ffprobe,
        ['-v', 'error', '-show_entries', 'stream=codec_type,height', '-of', 'json', `${server.url}${stream.hlsUrl}`],
        { timeout: 120_000 },
      );
      const heights = (JSON.parse(stdout).streams as { codec_type: string; height?: number }[])
        .filter((s) => s.codec_type === 'video')
        .map((s) => s.height);
      expect(heights).toEqual([360]);

      // Health: nothing queued or running; the killed runner is listed with its last heartbeat, older than the lease.
      const after = (await api.get('/health', admin)).body.data.transcode;
      expect(after).toMatchObject({ queued: 0, running: 0 });
      const dead = after.runners.find((r: { id: string }) => r.id.includes(`:${killed.pid}:`));
      const alive = after.runners.find((r: { id: string }) => r.id.includes(`:${survivor.pid}:`));
      expect(dead.heartbeatAgeSeconds).toBeGreaterThan(3);
      expect(alive).toMatchObject({ kind: 'runner', concurrency: 1, jobs: 0 });
      const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      expect(metrics).toMatch(/^transcode_queue_depth 0$/m);
      expect(metrics).toMatch(/^transcode_jobs_running 0$/m);
      expect(metrics).toContain(`transcode_runner_heartbeat_age_seconds{runner="${dead.id}",kind="runner"}`);
      expect(metrics).toContain(`transcode_runner_heartbeat_age_seconds{runner="${alive.id}",kind="runner"}`);

      // SIGTERM: the survivor stops cleanly and leaves the list.
      survivor.child.kill('SIGTERM');
      expect(await survivor.exited).toBe(0);
      const ids = (await api.get('/health', admin)).body.data.transcode.runners.map((r: { id: string }) => r.id);
      expect(ids).toEqual([dead.id]);
    }, 300_000);

    it('a token runner stopped with SIGTERM mid-job gives its job back at once: another runner takes it long before the lease would pass', async () => {
      // The same store behind a server with a 10-minute lease: only a give-back lets another runner have the job within the test.
      const longLease = await launchServer({ ...env, TRANSCODE_LEASE_SECONDS: '600' });
      try {
        const api = apiClient(longLease.url);
        const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
        const { videoId, bytes } = await queuedUpload(api, admin, 'Handed back');
        const { runner: holder, link } = await stalledRunner(longLease.url, bytes);
        holder.child.kill('SIGTERM');
        // The runner prints this line and stops its jobs in one turn of its event loop: once the line
        // is here, the stalled download is already aborted, and the connection may flow again for
        // the give-back.
        await waitFor(async () => (holder.output().includes('SIGTERM: stopping; running jobs go back to the queue') ? true : undefined));
        link.release();
        expect(await holder.exited).toBe(0);
        const next = await startTokenRunner(longLease.url, token, machine());
        runners.push(next);
        const completed = await waitFor(async () => {
          const t = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
          return t.status === 'completed' || t.status === 'failed' ? t : undefined;
        });
        expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
        await jobEnded(next, videoId, 'completed');
        next.child.kill('SIGTERM');
        expect(await next.exited).toBe(0);
      } finally {
        await killAll([longLease]);
      }
    }, 300_000);
  });
}
