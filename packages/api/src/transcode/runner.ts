/**
 * A transcode runner: takes jobs from the persistent queue (transcodeJobs.ts) up to `concurrency`
 * at once and runs each through the transcode service. The same code runs in the API's leader
 * (worker.ts, unless TRANSCODE_IN_SERVER=false) and in `pnpm cli transcode-runner` on any machine.
 *
 * Every `lease / 3` a heartbeat renews the lease of each job it holds and its row in the runners
 * table. A renewal that finds the job no longer ours (the lease passed while this process was
 * stalled, and another runner took it) kills that job's ffmpeg; the service's writes are all
 * conditional on the claim, so the loser publishes nothing. On stop, ffmpeg is killed and the jobs
 * are given back to the queue for the next runner at once; a runner that dies without stopping
 * (SIGKILL, a lost machine) loses its jobs when their leases pass.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { AppContext } from '../context.js';
import { sweepTranscodeScratch } from '../media/index.js';
import type { Started } from '../module.js';
import { forgetRunner, forgetSilentRunners, RUNNER_FORGET_SECONDS, recordRunner } from './runnerRegistry.js';
import { type JobOutcome, runTranscodeJob } from './transcode.service.js';
import { claimNextJob, claimOf, releaseJob, renewLease, type TranscodeJob } from './transcodeJobs.js';

export const RUNNER_POLL_MS = 1000;

export interface RunnerOptions {
  kind: 'server' | 'runner';
  concurrency: number;
  /** How often an idle runner looks at the queue (default RUNNER_POLL_MS). */
  pollMs?: number;
  /** Called after each job with its outcome (the CLI logs it; tests wait on it). */
  onJob?: (job: TranscodeJob, outcome: JobOutcome | 'crashed') => void;
}

export interface TranscodeRunner extends Started {
  id: string;
  /** Jobs being transcoded right now. */
  running(): number;
}

/** `host:pid:random`: readable in /api/health, unique even for two containers with the same host name and pid. */
export const newRunnerId = () => `${os.hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;

export async function startTranscodeRunner(ctx: AppContext, opts: RunnerOptions): Promise<TranscodeRunner> {
  const id = newRunnerId();
  const leaseMs = ctx.env.TRANSCODE_LEASE_SECONDS * 1000;
  const now = () => ctx.clock.now();
  const leaseUntil = () => new Date(now().getTime() + leaseMs).toISOString();
  const startedAt = now().toISOString();
  const stopping = new AbortController();
  const jobs = new Map<string, { job: TranscodeJob; abort: AbortController; done: Promise<void> }>();
  let polling: Promise<void> | undefined;

  const heartbeatRow = () =>
    recordRunner(ctx.db, {
      id,
      kind: opts.kind,
      host: os.hostname(),
      pid: process.pid,
      concurrency: opts.concurrency,
      started_at: startedAt,
      heartbeat_at: now().toISOString(),
    });
  await heartbeatRow();
  // What a killed runner on this DATA_DIR left mid-transcode: its job went to another runner.
  const swept = await sweepTranscodeScratch(ctx.env.DATA_DIR);
  if (swept) ctx.logger.info({ runner: id, removed: swept }, 'transcode scratch left by a stopped runner removed');

  function run(job: TranscodeJob): void {
    const abort = new AbortController();
    const claim = claimOf(job);
    const done = runTranscodeJob(ctx, job, abort.signal)
      .then(async (outcome) => {
        // Stopped or lost: hand the job back (a no-op when another runner holds it now).
        if (outcome === 'interrupted') await releaseJob(ctx.db, claim, now().toISOString());
        opts.onJob?.(job, outcome);
      })
      .catch((err) => {
        ctx.logger.error({ err, videoId: job.video_id, runner: id }, 'transcode job crashed');
        opts.onJob?.(job, 'crashed');
      })
      .finally(() => {
        jobs.delete(job.video_id);
        void poll();
      });
    jobs.set(job.video_id, { job, abort, done });
  }

  function poll(): Promise<void> {
    if (polling || stopping.signal.aborted) return polling ?? Promise.resolve();
    polling = pollOnce().finally(() => {
      polling = undefined;
    });
    return polling;
  }

  async function pollOnce(): Promise<void> {
    try {
      while (jobs.size < opts.concurrency && !stopping.signal.aborted) {
        const job = await claimNextJob(ctx.db, id, now().toISOString(), leaseUntil());
        if (!job) break;
        if (stopping.signal.aborted) {
          await releaseJob(ctx.db, claimOf(job), now().toISOString());
          break;
        }
        ctx.logger.info({ videoId: job.video_id, claim: job.attempt, runner: id }, 'transcode job claimed');
        run(job);
      }
    } catch (err) {
      ctx.logger.warn({ err, runner: id }, 'transcode queue poll failed; will retry');
    }
  }

  let beating: Promise<void> | undefined;
  function heartbeat(): void {
    if (beating || stopping.signal.aborted) return;
    beating = beat().finally(() => {
      beating = undefined;
    });
  }

  async function beat(): Promise<void> {
    try {
      for (const { job, abort } of [...jobs.values()]) {
        if (abort.signal.aborted) continue;
        if (await renewLease(ctx.db, claimOf(job), now().toISOString(), leaseUntil())) continue;
        ctx.logger.warn({ videoId: job.video_id, runner: id }, 'transcode lease lost to another runner; stopping this attempt');
        abort.abort(new Error('lease lost'));
      }
      await heartbeatRow();
      await forgetSilentRunners(ctx.db, new Date(now().getTime() - RUNNER_FORGET_SECONDS * 1000).toISOString());
    } catch (err) {
      // The database is unreachable: the leases run out unless it comes back in time, and then the
      // renewals above find the jobs taken and stop them.
      ctx.logger.warn({ err, runner: id }, 'transcode heartbeat failed; will retry');
    }
  }

  const pollTimer = setInterval(() => void poll(), opts.pollMs ?? RUNNER_POLL_MS);
  const beatTimer = setInterval(heartbeat, Math.max(250, leaseMs / 3));
  pollTimer.unref();
  beatTimer.unref();
  void poll();
  ctx.logger.info({ runner: id, kind: opts.kind, concurrency: opts.concurrency, leaseSeconds: leaseMs / 1000 }, 'transcode runner started');

  let stopped: Promise<void> | undefined;
  return {
    id,
    running: () => jobs.size,
    stop() {
      stopped ??= (async () => {
        clearInterval(pollTimer);
        clearInterval(beatTimer);
        stopping.abort();
        // A poll in flight releases what it claims from now on instead of running it.
        for (const j of jobs.values()) j.abort.abort(new Error('runner stopping'));
        await polling;
        await beating;
        await Promise.allSettled([...jobs.values()].map((j) => j.done));
        await forgetRunner(ctx.db, id).catch((err) => ctx.logger.warn({ err, runner: id }, 'could not remove the runner row'));
        ctx.logger.info({ runner: id }, 'transcode runner stopped');
      })();
      return stopped;
    },
  };
}
