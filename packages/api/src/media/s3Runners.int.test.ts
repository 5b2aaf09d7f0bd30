/**
 * Token runners on the object store, no shared disk (PostgreSQL + the tests' Ceph RGW): an API
 * process with TRANSCODE_IN_SERVER=false and two `pnpm cli transcode-runner --server URL` processes
 * holding only PATH, HOME and a RUNNER_TOKEN (no bucket key: they read the original and write the
 * ladder through the presigned URLs the API hands out), each with its own home and scratch. The
 * API reaches the gateway through a relay the test controls, so the presigned URLs a runner uses
 * cross it too: the relay stops passing bytes two thirds into the original, so the claiming runner
 * is certainly mid-job (its attempt started, the original partly on its disk) when the test
 * SIGKILLs it. The other runner takes the job after the 3 s lease and completes it; the ladder is in
 * the bucket and nothing else is; ffprobe plays it through the API; no file of the video is left on
 * any disk (the killed runner's scratch is swept when a runner starts again in its home). A runner
 * that loses the store mid-job leaves the job to its lease instead of failing the video.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, launchServer, runCli } from '../../test/childServer';
import { apiClient, type FreshStore, freshStore, TEST_ADMIN, TEST_DATABASE_URL, tmpDir } from '../../test/harness';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds, TEST_S3 } from '../../test/s3';
import { jobEnded, killAll, type Runner, startTokenRunner, waitFor } from '../transcode/runners.testkit';
import { postUpload } from '../uploads/upload.testkit';
import { mediaBinaries } from './ffmpeg';
import { filesUnder, makeSizedClip } from './media.testkit';
import { type Relay, relay } from './relay.testkit';

const run = promisify(execFile);

/** A runner token made as the operator makes one. */
async function makeToken(env: Record<string, string>, name: string): Promise<string> {
  const made = await runCli(env, ['runners', 'token', 'create', name]);
  const token = /rnr_[A-Za-z0-9_-]{43}/.exec(made.out)?.[0];
  if (made.code !== 0 || !token) throw new Error(`runners token create: ${made.code}\n${made.out}`);
  return token;
}

/** The partly downloaded originals and ladders in a runner's scratch (its home's `scratch/`). */
const scratchFiles = (home: string) => filesUnder(path.join(home, 'scratch'));

if (!TEST_DATABASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set in CI');

describe.runIf(Boolean(TEST_DATABASE_URL) && mediaKinds().includes('s3'))(
  'transcode runners on the object store, no shared disk [postgres, s3]',
  () => {
    let store: FreshStore;
    let bucket: FreshBucket;
    let link: Relay;
    let server: ChildServer;
    let env: Record<string, string>;
    let token: string;
    const runners: Runner[] = [];
    const dirs: string[] = [];
    const runnerDir = () => {
      const d = tmpDir('s3-runner-');
      dirs.push(d);
      return d;
    };

    beforeAll(async () => {
      store = await freshStore('postgres');
      bucket = await freshBucket();
      link = await relay(new URL(TEST_S3?.endpoint as string));
      env = {
        ...(store.env as Record<string, string>),
        ...bucket.env,
        // The API's connections to the gateway, and so the presigned URLs it hands the runners.
        AWS_ENDPOINT_URL_S3: link.url,
        TRANSCODE_IN_SERVER: 'false',
        TRANSCODE_CONCURRENCY: '1',
        TRANSCODE_PRESET: 'ultrafast',
        TRANSCODE_LEASE_SECONDS: '3',
        LOG_LEVEL: 'info',
      };
      server = await launchServer(env);
      token = await makeToken(env, 's3-runners');
    }, 120_000);

    // A test's runners end with it, however it ends: one left running would take the next test's job.
    afterEach(() => killAll(runners.splice(0)));
    afterAll(async () => {
      await killAll([...runners, server]);
      await link?.close();
      await bucket?.cleanup();
      await store?.cleanup();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it('a runner killed mid-job loses the job to the other, which publishes the ladder to the bucket; no disk keeps a file', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const fixtures = runnerDir();
      const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 12, kbps: 800 });
      const up = await postUpload(server.url, admin, { title: 'Runners on S3', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      await waitFor(async () => ((await api.get('/health', admin)).body.data.transcode.queued === 1 ? true : undefined));

      // Both runners read and write the bucket through presigned URLs across the relay; the original comes slowly.
      const killedHome = runnerDir();
      const survivorHome = runnerDir();
      link.holdAfter(Math.floor((fs.statSync(clip).size * 2) / 3));
      const first = await startTokenRunner(server.url, token, killedHome);
      runners.push(first);
      const db = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await db.connect();
      const transcodeEvents = async () =>
        (
          await db.query<{ type: string; data: unknown }>('SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version', [
            `transcode-${videoId}`,
          ])
        ).rows.map((e) => ({ type: e.type, ...((typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as { attempt: number }) }));
      try {
        // Mid-job: attempt 1 started, and the runner has part of the original and waits for the rest.
        await waitFor(async () => (link.isHeld() ? true : undefined));
        const partial = () => scratchFiles(killedHome).filter((f) => path.basename(f) === 'source' && fs.statSync(f).size > 0);
        await waitFor(async () => (partial().length > 0 ? true : undefined));
        expect((await transcodeEvents()).map((e) => `${e.type} ${e.attempt}`)).toContain('TranscodeStarted 1');
        const second = await startTokenRunner(server.url, token, survivorHome);
        runners.push(second);
        first.child.kill('SIGKILL');
        await first.exited;
        // The dead runner's connection to the gateway goes; the relay passes bytes again.
        link.cut();
        link.release();
        link.restore();
        // The killed runner's scratch: a half-downloaded original nobody will transcode.
        expect(partial().length).toBe(1);

        const completed = await waitFor(async () => {
          const t = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
          return t.status === 'completed' || t.status === 'failed' ? t : undefined;
        });
        expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
        await jobEnded(second, videoId, 'completed');
        expect((await transcodeEvents()).filter((e) => e.type !== 'TranscodeProgressed').map((e) => `${e.type} ${e.attempt}`)).toEqual([
          'TranscodeStarted 1',
          'TranscodeStarted 2',
          'TranscodeCompleted 2',
        ]);
      } finally {
        await db.end();
      }

      // The bucket holds the original, the thumbnail and one complete ladder, nothing else.
      const keys = await bucketKeys(bucket.bucket);
      const segments = keys.filter((k) => /^videos\/[^/]+\/hls\/360p\/seg_\d{5}\.ts$/.test(k));
      expect(segments.length).toBeGreaterThanOrEqual(3);
      expect(keys.filter((k) => !segments.includes(k))).toEqual(
        [
          `videos/${videoId}/hls/360p/index.m3u8`,
          // The members' progressive file: the rendition remuxed, within their cap.
          `videos/${videoId}/hls/360p/progressive.mp4`,
          `videos/${videoId}/hls/master.m3u8`,
          `videos/${videoId}/hls/previews.vtt`,
          `videos/${videoId}/hls/sprites/sprite-001.jpg`,
          `videos/${videoId}/thumbnail.jpg`,
          `videos/${videoId}/video.mp4`,
        ].sort(),
      );

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

      // A runner started again in the killed runner's home (systemd's Restart=) sweeps its scratch.
      const restarted = await startTokenRunner(server.url, token, killedHome);
      runners.push(restarted);
      for (const home of [survivorHome, killedHome]) expect(scratchFiles(home)).toEqual([]);
      // The API's own disk: no upload, no ladder, no transcode scratch (the bucket holds the video).
      expect(filesUnder(path.join(store.dataDir, 'media'))).toEqual([]);
      expect(filesUnder(path.join(store.dataDir, 'uploads'))).toEqual([]);
      for (const r of runners.slice(1)) {
        r.child.kill('SIGTERM');
        expect(await r.exited).toBe(0);
      }
    }, 300_000);

    it('a runner that loses the store mid-job leaves the job to its lease instead of failing it; with the store back it completes', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const fixtures = runnerDir();
      const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 12, kbps: 800 });
      const up = await postUpload(server.url, admin, { title: 'Store lost', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      const home = runnerDir();
      link.holdAfter(Math.floor((fs.statSync(clip).size * 2) / 3));
      const runner = await startTokenRunner(server.url, token, home);
      runners.push(runner);
      await waitFor(async () => (link.isHeld() ? true : undefined));
      // The store goes away under the running job.
      link.cut();
      link.release();
      await waitFor(async () => (/^transcode of \S+ \w+/m.test(runner.output()) ? true : undefined));
      expect(runner.output()).toMatch(new RegExp(`^transcode of ${videoId} unavailable: the job is left to its lease`, 'm'));
      // Not a failure: the admin library still shows it running, and nothing was published.
      const meanwhile = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
      expect(meanwhile).toMatchObject({ status: 'running', error: null });
      expect((await bucketKeys(bucket.bucket, `videos/${videoId}/hls/`)).length).toBe(0);
      expect(scratchFiles(home)).toEqual([]);

      // The store is back: the job is taken again once its lease has passed, and completes whole.
      link.restore();
      const completed = await waitFor(async () => {
        const t = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
        return t.status === 'completed' || t.status === 'failed' ? t : undefined;
      });
      expect(completed).toEqual({ status: 'completed', progress: 100, error: null });
      const stream = (await api.get(`/videos/${videoId}/stream`, admin)).body.data;
      const { stdout } = await run(
        mediaBinaries().ffprobe,
        ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', `${server.url}${stream.hlsUrl}`],
        {
          timeout: 120_000,
        },
      );
      expect(Number(JSON.parse(stdout).format.duration)).toBeGreaterThan(11);
      expect(scratchFiles(home)).toEqual([]);
      runner.child.kill('SIGTERM');
      expect(await runner.exited).toBe(0);
    }, 300_000);
  },
);
