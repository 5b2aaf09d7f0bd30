/**
 * Transcode runners as an operator runs them, on PostgreSQL: an API process with
 * TRANSCODE_IN_SERVER=false and two `pnpm cli transcode-runner` processes (the real CLI entry point,
 * child processes) sharing the database and the media folder, with a 3 s lease. An uploaded video
 * waits in the queue (the API does not transcode it); the runner that claims it is SIGKILLed
 * mid-transcode (its ffmpeg held on a FIFO source, so "mid-transcode" is certain on any machine);
 * the other runner takes the job once the lease has passed, starts a new attempt and completes it,
 * and ffprobe plays the result through the API. /api/health and /metrics show the queue and both
 * runners' heartbeats; SIGTERM stops the survivor cleanly and removes it from the list. A runner
 * stopped with SIGTERM mid-transcode gives its job back: another runner completes it at once,
 * although the stopped runner's lease (10 minutes) has not passed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, launchServer, runCli } from '../../test/childServer';
import { apiClient, type FreshStore, freshStore, storeKinds, TEST_ADMIN } from '../../test/harness';
import { mediaBinaries } from '../media/ffmpeg';
import { makeSizedClip } from '../media/media.testkit';
import { postUpload } from '../uploads/upload.testkit';
import { jobEnded, killAll, openWriter, type Runner, startRunner, waitFor } from './runners.testkit';

const run = promisify(execFile);
const METRICS_TOKEN = 'runners-test-metrics-token';

for (const kind of storeKinds.filter((k) => k === 'postgres')) {
  describe(`transcode runners on other processes [${kind}]`, () => {
    let store: FreshStore;
    let server: ChildServer;
    const runners: Runner[] = [];
    let env: Record<string, string>;

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
    }, 120_000);

    // A test's runners end with it, however it ends: one left running would take the next test's job.
    afterEach(() => killAll(runners.splice(0)));
    afterAll(async () => {
      await killAll([...runners, server]);
      await store?.cleanup();
    });

    it('refuses a runner that would run nothing, with a message naming the setting', async () => {
      for (const args of [
        ['--concurrency', '0'],
        ['--concurrency', 'two'],
      ]) {
        const r = await runCli(env, ['transcode-runner', ...args]);
        expect([r.code, r.out.trim()]).toEqual([
          2,
          'A runner needs --concurrency N or TRANSCODE_CONCURRENCY of at least 1 (the number of transcodes it runs at once).',
        ]);
      }
    });

    it('a runner killed mid-transcode loses the job to the other runner after the lease, which completes it', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const clip = await makeSizedClip(store.dataDir, { width: 640, height: 360, seconds: 3 });
      const up = await postUpload(server.url, admin, { title: 'Runner clip', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;

      // The API queues it and leaves it there: it runs no runner of its own.
      const queued = await waitFor(async () => {
        const h = (await api.get('/health', admin)).body.data.transcode;
        return h.queued === 1 ? h : undefined;
      });
      expect(queued).toMatchObject({ inServer: false, queued: 1, running: 0, runners: [] });

      // The source becomes a FIFO nobody writes: the claiming runner's ffmpeg waits on it.
      const source = path.join(store.dataDir, 'media', 'videos', videoId, 'video.mp4');
      const real = `${source}.real`;
      fs.renameSync(source, real);
      await run('mkfifo', [source]);

      runners.push(await startRunner(env), await startRunner(env));
      const writer = await openWriter(source);
      let killed: Runner;
      try {
        const claimed = await waitFor(async () => {
          const h = (await api.get('/health', admin)).body.data.transcode;
          return h.running === 1 ? h : undefined;
        });
        const holder = claimed.runners.find((r: { jobs: number }) => r.jobs === 1);
        expect(claimed.runners).toHaveLength(2);
        killed = runners.find((r) => holder.id.includes(`:${r.pid}:`)) as Runner;
        expect(killed).toBeDefined();
        killed.child.kill('SIGKILL');
        await killed.exited;
        // Its ffmpeg, orphaned, reads the FIFO we still hold open; the real file goes back for the next attempt.
        fs.rmSync(source);
        fs.renameSync(real, source);
      } finally {
        fs.closeSync(writer); // the orphan ffmpeg gets end of file and exits
      }

      // The survivor takes the job once the 3 s lease has passed and completes a new attempt.
      const completed = await waitFor(async () => {
        const v = (await api.get(`/admin/videos/${videoId}`, admin)).body.data;
        return v.transcode.status === 'completed' || v.transcode.status === 'failed' ? v.transcode : undefined;
      });
      expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
      const survivor = runners.find((r) => r !== killed) as Runner;
      expect(survivor.output()).toContain('transcode job claimed');
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
        {
          timeout: 120_000,
        },
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

    it('a runner stopped with SIGTERM gives its job back at once: another runner takes it long before the lease would pass', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const clip = await makeSizedClip(store.dataDir, { width: 640, height: 360, seconds: 3 });
      const up = await postUpload(server.url, admin, { title: 'Handed back', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      await waitFor(async () => ((await api.get('/health', admin)).body.data.transcode.queued === 1 ? true : undefined));
      const source = path.join(store.dataDir, 'media', 'videos', videoId, 'video.mp4');
      const real = `${source}.real`;
      fs.renameSync(source, real);
      await run('mkfifo', [source]);

      // A 10-minute lease: only a give-back lets another runner have the job within the test.
      const holder = await startRunner({ ...env, TRANSCODE_LEASE_SECONDS: '600' });
      runners.push(holder);
      const writer = await openWriter(source);
      try {
        // Its ffmpeg holds the FIFO; the real file goes back in place for the next attempt.
        fs.rmSync(source);
        fs.renameSync(real, source);
        const next = await startRunner(env);
        runners.push(next);
        holder.child.kill('SIGTERM');
        expect(await holder.exited).toBe(0);
        expect(holder.output()).toContain('SIGTERM: stopping; running jobs go back to the queue');
        const completed = await waitFor(async () => {
          const t = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
          return t.status === 'completed' || t.status === 'failed' ? t : undefined;
        });
        expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
        await jobEnded(next, videoId, 'completed');
        next.child.kill('SIGTERM');
        expect(await next.exited).toBe(0);
      } finally {
        fs.closeSync(writer);
      }
    }, 300_000);
  });
}
