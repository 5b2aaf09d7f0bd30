/**
 * The transcode queue's leases on both stores: a claim takes each job once however many claimers
 * race (two connections to one database, as two runner processes have), renewals and outcomes
 * count only for the claim that holds the job, a job whose lease passed is taken again by another
 * runner, and a runner that lost its job publishes nothing: not its failure, not its ladder (real
 * ffmpeg, the source held back on a FIFO until the job has been taken), and a runner's heartbeat
 * that finds its job taken kills its ffmpeg. /api/health shows the queue and the runners.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { ingestVideoFile } from '../catalog/ingest';
import type { Db } from '../db/types';
import { openDatabase } from '../kernel/context';
import { makeSizedClip } from '../media/media.testkit';
import { createTestUser } from '../streaming/viewers.testkit';
import { runTranscodeJob, startLocalRunner } from './localJobs';
import { claimNextJob, claimOf, enqueueTranscode, finishJob, jobOf, releaseJob, renewLease, type TranscodeJob } from './transcodeJobs';

const run = promisify(execFile);
const fixtures = tmpDir('leases-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const iso = (d: Date, plusSeconds = 0) => new Date(d.getTime() + plusSeconds * 1000).toISOString();
const LEASE = 30;

forEachStore('transcode leases', (kind) => {
  let server: TestServer;
  let other: Db;
  let t0: Date;

  beforeAll(async () => {
    // No runner in the server: the test claims by hand. A short lease for the heartbeat test.
    server = await startTestServer(kind, {
      env: { TRANSCODE_CONCURRENCY: '0', TRANSCODE_PRESET: 'ultrafast', TRANSCODE_LEASE_SECONDS: '3' },
    });
    // PostgreSQL: a second pool on the same database, what a second runner process has. SQLite: the
    // same connection (its claims are serialised by one writer; a second connection in this process
    // would wait on the first synchronously, on the very event loop the first needs to commit).
    other = kind === 'postgres' ? openDatabase(server.ctx.env) : server.ctx.db;
    t0 = server.clock.now();
  });
  // Kills an ffmpeg a failing test left waiting on its FIFO (it would wait for a writer forever).
  const cleanup = new AbortController();
  afterAll(async () => {
    cleanup.abort();
    if (other !== server?.ctx.db) await other?.close();
    await server?.close();
  });

  const claim = (db: Db, worker: string, at: Date) => claimNextJob(db, worker, at.toISOString(), iso(at, LEASE));

  it('claimers racing on two connections take each job exactly once, oldest first', async () => {
    await enqueueTranscode(server.ctx.db, 'race-a', iso(t0, -3));
    await enqueueTranscode(server.ctx.db, 'race-b', iso(t0, -2));
    await enqueueTranscode(server.ctx.db, 'race-c', iso(t0, -1));
    const claimers = Array.from({ length: 12 }, (_, i) => claim(i % 2 ? other : server.ctx.db, `runner-${i}`, t0));
    const won = (await Promise.all(claimers)).filter((j): j is TranscodeJob => Boolean(j));
    expect(won.map((j) => j.video_id).sort()).toEqual(['race-a', 'race-b', 'race-c']);
    expect(new Set(won.map((j) => j.worker)).size).toBe(3);
    for (const j of won) {
      const row = await jobOf(server.ctx.db, j.video_id);
      expect(row).toMatchObject({ state: 'running', worker: j.worker, lease_expires_at: iso(t0, LEASE) });
      expect(Number(row?.attempt)).toBe(1);
    }
    expect(await claim(other, 'late', t0)).toBeUndefined();
    for (const j of won) expect(await finishJob(server.ctx.db, claimOf(j), 'done', t0.toISOString())).toBe(true);
  });

  it('one job, many claimers at once: only one wins', async () => {
    await enqueueTranscode(server.ctx.db, 'single', t0.toISOString());
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(i % 2 ? other : server.ctx.db, `r${i}`, t0)));
    const winners = results.filter(Boolean);
    expect(winners).toHaveLength(1);
    await finishJob(server.ctx.db, claimOf(winners[0] as TranscodeJob), 'done', t0.toISOString());
  });

  it('renewal counts only for the holder; a passed lease goes to another runner; the old claim then changes nothing', async () => {
    await enqueueTranscode(server.ctx.db, 'lease', t0.toISOString());
    const a = (await claim(server.ctx.db, 'runner-a', t0)) as TranscodeJob;
    expect(a.video_id).toBe('lease');
    const forged = { ...claimOf(a), worker: 'runner-b' };
    expect(await renewLease(other, forged, t0.toISOString(), iso(t0, 100))).toBe(false);
    // Renewed at t0+20: the lease runs to t0+50, so at t0+40 nobody can take it.
    const t20 = new Date(t0.getTime() + 20_000);
    expect(await renewLease(server.ctx.db, claimOf(a), t20.toISOString(), iso(t20, LEASE))).toBe(true);
    expect(await claim(other, 'runner-b', new Date(t0.getTime() + 40_000))).toBeUndefined();
    // Runner A goes silent; past its lease, B takes the job as a new attempt.
    const t51 = new Date(t0.getTime() + 51_000);
    const b = (await claim(other, 'runner-b', t51)) as TranscodeJob;
    expect([b.video_id, b.worker, Number(b.attempt)]).toEqual(['lease', 'runner-b', 2]);
    // A wakes up: its renewal, its outcome and its give-back all find the job no longer its own.
    expect(await renewLease(server.ctx.db, claimOf(a), t51.toISOString(), iso(t51, LEASE))).toBe(false);
    expect(await finishJob(server.ctx.db, claimOf(a), 'done', t51.toISOString())).toBe(false);
    expect(await releaseJob(server.ctx.db, claimOf(a), t51.toISOString())).toBe(false);
    expect(await jobOf(server.ctx.db, 'lease')).toMatchObject({ state: 'running', worker: 'runner-b' });
    // B gives it back on a clean stop: the next claim takes it at once.
    expect(await releaseJob(other, claimOf(b), t51.toISOString())).toBe(true);
    const c = (await claim(server.ctx.db, 'runner-c', t51)) as TranscodeJob;
    expect([c.video_id, Number(c.attempt)]).toEqual(['lease', 3]);
    // Even the same runner id claiming again is a different claim.
    expect(await finishJob(server.ctx.db, { ...claimOf(c), attempt: 2 }, 'done', t51.toISOString())).toBe(false);
    expect(await finishJob(server.ctx.db, claimOf(c), 'done', t51.toISOString())).toBe(true);
  });

  /** An uploaded clip whose source is a FIFO: ffmpeg waits on it until the test writes the real file in. */
  async function heldUpload(): Promise<{ videoId: string; fifo: string; real: string }> {
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    const clip = await makeSizedClip(fixtures, { width: 640, height: 360, seconds: 2 });
    const copy = path.join(fixtures, `${Math.random().toString(36).slice(2)}.mp4`);
    fs.copyFileSync(clip, copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title: 'held clip', accessLevel: 'free', actorId: admin.id });
    if (!r.ok) throw new Error(r.error.message);
    // The queue subscriber queues it.
    while ((await jobOf(server.ctx.db, r.videoId))?.state !== 'queued') await new Promise((res) => setTimeout(res, 50));
    const fifo = path.join(server.store.dataDir, 'media', 'videos', r.videoId, 'video.mp4');
    const real = `${fifo}.real`;
    fs.renameSync(fifo, real);
    await run('mkfifo', [fifo]);
    return { videoId: r.videoId, fifo, real };
  }

  /** A moment after any lease the server's runners can hold now (they renew from its clock, which the test does not move). */
  const pastLease = () => new Date(server.clock.now().getTime() + (server.ctx.env.TRANSCODE_LEASE_SECONDS + 1) * 1000);

  /** Opens the FIFO for writing once ffmpeg has it open for reading (a blocking open would stall the event loop that spawns ffmpeg). */
  async function openWriter(fifo: string): Promise<number> {
    for (;;) {
      try {
        return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  const typesOf = async (videoId: string) => (await server.ctx.store.readStream(`transcode-${videoId}`)).map((e) => e.type);
  const waitUntil = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 50));
  };

  it('a runner that lost its job publishes neither its ladder nor its failure', async () => {
    const { videoId, fifo, real } = await heldUpload();
    const at = server.clock.now();
    const a = (await claim(server.ctx.db, 'runner-a', at)) as TranscodeJob;
    expect(a.video_id).toBe(videoId);
    const ran = runTranscodeJob(server.ctx, a, cleanup.signal);
    await waitUntil(async () => (await typesOf(videoId)).includes('TranscodeStarted'));
    // A stalls past its lease (ffmpeg has had no input yet): B claims as of a moment after it.
    const b = (await claim(other, 'runner-b', pastLease())) as TranscodeJob;
    expect([b.video_id, b.worker]).toEqual([videoId, 'runner-b']);
    // Now A's ffmpeg gets the real source and finishes its ladder.
    await new Promise<void>((resolve, reject) =>
      fs.createReadStream(real).pipe(fs.createWriteStream(fifo)).on('finish', resolve).on('error', reject),
    );
    expect(await ran).toBe('lost');
    expect(await typesOf(videoId)).toEqual(['TranscodeStarted']);
    const dir = path.dirname(fifo);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('hls'))).toEqual([]);
    expect(await jobOf(server.ctx.db, videoId)).toMatchObject({ state: 'running', worker: 'runner-b' });
    // B's attempt starts cleanly and completes.
    fs.rmSync(fifo);
    fs.renameSync(real, fifo);
    expect(await runTranscodeJob(server.ctx, b)).toBe('completed');
    expect((await typesOf(videoId)).filter((t) => t !== 'TranscodeProgressed')).toEqual([
      'TranscodeStarted',
      'TranscodeStarted',
      'TranscodeCompleted',
    ]);
    expect(await jobOf(server.ctx.db, videoId)).toMatchObject({ state: 'done', worker: null });

    // The failure path: A's ffmpeg finds an empty source after B took the job; no TranscodeFailed.
    const held = await heldUpload();
    const a2 = (await claim(server.ctx.db, 'runner-a', server.clock.now())) as TranscodeJob;
    const ran2 = runTranscodeJob(server.ctx, a2, cleanup.signal);
    await waitUntil(async () => (await typesOf(held.videoId)).includes('TranscodeStarted'));
    expect((await claim(other, 'runner-b', pastLease()))?.video_id).toBe(held.videoId);
    fs.closeSync(await openWriter(held.fifo)); // opened and closed: ffmpeg reads an empty file and fails
    expect(await ran2).toBe('lost');
    expect(await typesOf(held.videoId)).toEqual(['TranscodeStarted']);
    expect(await jobOf(server.ctx.db, held.videoId)).toMatchObject({ state: 'running', worker: 'runner-b' });
    await server.ctx.db.run(`UPDATE transcode_jobs SET state = 'done' WHERE video_id = ?`, [held.videoId]);
  }, 120_000);

  it("a runner's heartbeat that finds its job taken kills its ffmpeg; /api/health shows the queue and the runner", async () => {
    const { videoId, fifo, real } = await heldUpload();
    const outcomes: string[] = [];
    // The leader's in-process runner (a token runner's heartbeat is remoteRunner.int's and runners.int's).
    const runner = await startLocalRunner(server.ctx, {
      concurrency: 1,
      pollMs: 100,
      onJob: (_j, o) => outcomes.push(o),
    });
    try {
      await waitUntil(async () => (await typesOf(videoId)).includes('TranscodeStarted'));
      const health = (await apiClient(server.url).get('/health', await adminToken(server))).body.data.transcode;
      expect(health).toMatchObject({ inServer: true, queued: 0, running: 1 });
      expect(health.runners).toEqual([expect.objectContaining({ id: runner.id, kind: 'server', concurrency: 1, jobs: 1 })]);
      expect((await claim(other, 'runner-b', pastLease()))?.video_id).toBe(videoId);
      // Within a heartbeat (a third of the 3 s lease), the runner stops its attempt.
      await waitUntil(async () => outcomes.length > 0);
      expect(outcomes).toEqual(['interrupted']);
      expect(runner.running()).toBe(0);
      expect(await typesOf(videoId)).toEqual(['TranscodeStarted']);
      expect(await jobOf(server.ctx.db, videoId)).toMatchObject({ state: 'running', worker: 'runner-b' });
    } finally {
      await runner.stop();
      fs.rmSync(fifo, { force: true });
      fs.renameSync(real, fifo);
    }
    // Stopped cleanly: gone from the runners.
    expect((await apiClient(server.url).get('/health', await adminToken(server))).body.data.transcode.runners).toEqual([]);
  }, 120_000);
});
