/**
 * Transcode runners on the object store, no shared disk (PostgreSQL + the tests' Ceph RGW): an API
 * process with TRANSCODE_IN_SERVER=false and two `pnpm cli transcode-runner` processes, each with
 * its own DATA_DIR (scratch only) and the same MEDIA_STORE. The runners reach the gateway through a
 * relay the test controls: the claiming runner's ffmpeg reads the original through a presigned URL
 * and the relay stops passing bytes two thirds into the file, so the transcode is certainly
 * running, its first segments written, when the test SIGKILLs that runner. The other runner takes the job after the 3 s lease and
 * completes it; the ladder is in the bucket and nothing else is; ffprobe plays it through the API;
 * no file of the video is left on any process's disk (the killed runner's scratch is swept when a
 * runner starts again on its DATA_DIR).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, launchServer } from '../../test/childServer';
import { apiClient, type FreshStore, freshStore, TEST_ADMIN, TEST_DATABASE_URL, tmpDir } from '../../test/harness';
import { bucketKeys, type FreshBucket, freshBucket, mediaKinds, TEST_S3 } from '../../test/s3';
import { processAlive } from '../shared/processAlive';
import { jobEnded, killAll, type Runner, startRunner, waitFor } from '../transcode/runners.testkit';
import { postUpload } from '../uploads/upload.testkit';
import { mediaBinaries } from './ffmpeg';
import { filesUnder, makeSizedClip } from './media.testkit';
import { type Relay, relay } from './relay.testkit';

const run = promisify(execFile);

/** The child processes of `pid` (from /proc, so nothing beyond Linux itself is needed). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

if (!TEST_DATABASE_URL && process.env.CI === 'true') throw new Error('TEST_DATABASE_URL must be set in CI');

describe.runIf(Boolean(TEST_DATABASE_URL) && mediaKinds().includes('s3'))(
  'transcode runners on the object store, no shared disk [postgres, s3]',
  () => {
    let store: FreshStore;
    let bucket: FreshBucket;
    let link: Relay;
    let server: ChildServer;
    let env: Record<string, string>;
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
        TRANSCODE_IN_SERVER: 'false',
        TRANSCODE_CONCURRENCY: '1',
        TRANSCODE_PRESET: 'ultrafast',
        TRANSCODE_LEASE_SECONDS: '3',
        LOG_LEVEL: 'info',
      };
      server = await launchServer(env);
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

    it('a runner killed mid-transcode loses the job to the other, which publishes the ladder to the bucket; no disk keeps a file', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const fixtures = runnerDir();
      const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 12, kbps: 800 });
      const up = await postUpload(server.url, admin, { title: 'Runners on S3', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      await waitFor(async () => ((await api.get('/health', admin)).body.data.transcode.queued === 1 ? true : undefined));

      // Both runners read and write the bucket through the relay; the original comes slowly.
      const runnerEnv = (dataDir: string) => ({ ...env, DATA_DIR: dataDir, AWS_ENDPOINT_URL_S3: link.url });
      const killedDir = runnerDir();
      const survivorDir = runnerDir();
      link.holdAfter(Math.floor((fs.statSync(clip).size * 2) / 3));
      const first = await startRunner(runnerEnv(killedDir));
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
        // Mid-transcode: attempt 1's ffmpeg has written part of the ladder and waits for the rest of the file.
        const written = () => filesUnder(path.join(killedDir, 'media')).filter((f) => f.endsWith('.ts') && fs.statSync(f).size > 0);
        await waitFor(async () => (written().length > 0 ? true : undefined));
        expect((await transcodeEvents()).map((e) => `${e.type} ${e.attempt}`)).toContain('TranscodeStarted 1');
        const [ffmpegPid = 0] = childrenOf(first.pid);
        expect(ffmpegPid).toBeGreaterThan(0);
        const second = await startRunner(runnerEnv(survivorDir));
        runners.push(second);
        first.child.kill('SIGKILL');
        await first.exited;
        // The orphaned ffmpeg loses its connection to the store and ends.
        link.cut();
        await waitFor(async () => (processAlive(ffmpegPid) ? undefined : true));
        link.release();
        link.restore();
        // The killed runner's scratch: a half-written ladder nobody will publish.
        expect(filesUnder(path.join(killedDir, 'media')).some((f) => f.endsWith('.ts'))).toBe(true);

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

      // A runner started again on the killed runner's DATA_DIR (systemd's Restart=) sweeps its scratch.
      const restarted = await startRunner(runnerEnv(killedDir));
      runners.push(restarted);
      for (const dir of [store.dataDir, survivorDir, killedDir]) {
        expect(filesUnder(path.join(dir, 'media'))).toEqual([]);
        expect(filesUnder(path.join(dir, 'uploads'))).toEqual([]);
        const scratch = path.join(dir, 'media', 'transcode');
        expect(fs.existsSync(scratch) ? fs.readdirSync(scratch) : []).toEqual([]);
      }
      for (const r of runners.slice(1)) {
        r.child.kill('SIGTERM');
        expect(await r.exited).toBe(0);
      }
    }, 300_000);

    it('a runner that loses the store mid-transcode gives the job back after the lease instead of failing it; with the store back it completes', async () => {
      const api = apiClient(server.url);
      const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
      const fixtures = runnerDir();
      const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 12, kbps: 800 });
      const up = await postUpload(server.url, admin, { title: 'Store lost', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;
      const dataDir = runnerDir();
      link.holdAfter(Math.floor((fs.statSync(clip).size * 2) / 3));
      const runner = await startRunner({ ...env, DATA_DIR: dataDir, AWS_ENDPOINT_URL_S3: link.url });
      runners.push(runner);
      await waitFor(async () =>
        filesUnder(path.join(dataDir, 'media')).some((f) => f.endsWith('.ts') && fs.statSync(f).size > 0) ? true : undefined,
      );
      // The store goes away under the running transcode.
      link.cut();
      link.release();
      await waitFor(async () => (/"outcome":"(\w+)"/.test(runner.output()) ? true : undefined));
      expect(runner.output()).toMatch(new RegExp(`"videoId":"${videoId}","outcome":"unavailable"`));
      // Not a failure: the admin library still shows it running, and nothing was published.
      const meanwhile = (await api.get(`/admin/videos/${videoId}`, admin)).body.data.transcode;
      expect(meanwhile).toMatchObject({ status: 'running', error: null });
      expect((await bucketKeys(bucket.bucket, `videos/${videoId}/hls/`)).length).toBe(0);
      expect(filesUnder(path.join(dataDir, 'media'))).toEqual([]);

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
      expect(filesUnder(path.join(dataDir, 'media'))).toEqual([]);
      runner.child.kill('SIGTERM');
      expect(await runner.exited).toBe(0);
    }, 300_000);
  },
);
