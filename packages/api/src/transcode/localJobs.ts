/**
 * The in-process job source (runnerLoop.ts's `JobSource` over the queue itself) and the API
 * leader's runner built on it (worker.ts starts it, unless TRANSCODE_IN_SERVER=false). Jobs are
 * claimed from the persistent queue (transcodeJobs.ts) under a lease; each step of an attempt is
 * recorded as an event through the transcode decider, appended in a transaction that first renews
 * the claim and rolls back if another runner holds it (`LeaseLostError`, the queue's `JobLost`), and
 * the outcome event ends the job in that same transaction. The original is read and the ladder
 * published through the media store (`hlsWorkspace`): the leader holds the store's credentials.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Queryable } from '../db/types.js';
import type { AppContext } from '../kernel/context.js';
import type { Started } from '../kernel/module.js';
import { sweepTranscodeScratch } from '../media/index.js';
import { redactSecrets } from '../shared/redact.js';
import { TranscodeError } from './hlsTranscoder.js';
import { type Attempt, type HeldJob, type JobOutcome, type JobSource, runJob, startRunnerLoop } from './runnerLoop.js';
import { forgetRunner, forgetSilentRunners, RUNNER_FORGET_SECONDS, recordRunner } from './runnerRegistry.js';
import { clockOf, decide, startClaimedAttempt, storeDown, transcodeReadSeconds, WORKER } from './transcode.service.js';
import {
  claimNextJob,
  claimOf,
  finishJob,
  type JobClaim,
  LeaseLostError,
  releaseJob,
  renewLease,
  type TranscodeJob,
} from './transcodeJobs.js';
import { keyFor } from './videoKeys.js';

/** A job of the queue held by this process. */
export interface LocalJob extends HeldJob {
  claim: JobClaim;
}

const heldOf = (job: TranscodeJob): LocalJob => ({ videoId: job.video_id, claimAttempt: Number(job.attempt), claim: claimOf(job) });

/** `host:pid:random`: readable in /api/health, unique even for two containers with the same host name and pid. */
export const newRunnerId = () => `${os.hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;

/**
 * Starts the attempt of a claimed job: the video (if it still exists), the store (nothing starts
 * while it is down: the lease passes and the job is taken again later), `TranscodeStarted`, and the
 * ffmpeg input with the writes that end the attempt.
 */
async function startAttempt(ctx: AppContext, job: LocalJob, signal: AbortSignal): Promise<Attempt | JobOutcome> {
  const { videoId, claim } = job;
  const { now, held } = clockOf(ctx);
  if (signal.aborted) return 'interrupted';
  const start = await startClaimedAttempt(ctx, claim);
  if (typeof start === 'string') return start;
  const { row, renditions, attempt } = start;
  const storage = ctx.media;
  const ending = (state: 'done' | 'failed') => async (tx: Queryable) => {
    if (!(await finishJob(tx, claim, state, now()))) throw new LeaseLostError(claim);
  };
  const recordFailure = async (error: string) => {
    const failed = await decide(
      ctx,
      videoId,
      // ffmpeg's stderr names the presigned URL it read: never stored with its signature.
      { type: 'FailTranscode', data: { videoId, attempt, error: redactSecrets(error), at: now() } },
      WORKER,
      ending('failed'),
    );
    if (!failed.ok) await finishJob(ctx.db, claim, 'failed', now());
    return 'failed' as const;
  };
  if (renditions.length === 0) return recordFailure(`The source has no usable picture size (${row.width}×${row.height})`);

  const workspace = await storage.hlsWorkspace(videoId);
  return {
    spec: {
      source: await storage.ffmpegInput(row.video_key, transcodeReadSeconds(Number(row.duration_seconds))),
      videoDir: workspace.dir,
      publish: workspace.publish,
      attempt,
      renditions,
      hasAudio: Boolean(row.audio_codec),
      durationSeconds: Number(row.duration_seconds),
      preset: ctx.env.TRANSCODE_PRESET,
      ...(ctx.env.FORENSIC_WATERMARK && { watermark: { videoId } }),
      key: await keyFor(ctx.db, videoId, now()),
      // The last moment to find the job taken by another runner, before its ladder replaces the video's.
      beforeSwap: () => held(claim)(ctx.db),
    },
    async progress(percent) {
      await decide(ctx, videoId, { type: 'RecordProgress', data: { videoId, attempt, percent, at: now() } }, WORKER, held(claim));
    },
    async complete(out) {
      const done = await decide(
        ctx,
        videoId,
        {
          type: 'CompleteTranscode',
          data: {
            videoId,
            attempt,
            renditions: out.renditions,
            previews: out.previews,
            totalBytes: out.totalBytes,
            ffmpegSeconds: out.ffmpegSeconds,
            at: now(),
          },
        },
        WORKER,
        ending('done'),
      );
      if (!done.ok) {
        await finishJob(ctx.db, claim, 'done', now());
        ctx.logger.warn({ videoId, error: done.error }, 'transcode finished but was not recorded');
      }
    },
    async fail(err) {
      // Not the video's fault: no TranscodeFailed; the job is taken again once its lease has passed.
      if (await storeDown(storage, err)) return 'unavailable';
      return recordFailure(err instanceof TranscodeError ? err.message : `Transcode failed: ${(err as Error).message}`);
    },
    close: () => workspace.done(),
  };
}

/** The queue as a job source for the runner `runnerId` of this process (its row: `kind: 'server'`). */
export function localJobs(ctx: AppContext, runnerId: string, row: { concurrency: number; startedAt: string }): JobSource<LocalJob> {
  const { now, leaseUntil } = clockOf(ctx);
  return {
    runnerId,
    leaseMs: ctx.env.TRANSCODE_LEASE_SECONDS * 1000,
    async claim() {
      const job = await claimNextJob(ctx.db, runnerId, now(), leaseUntil());
      return job ? heldOf(job) : null;
    },
    async heartbeat(held) {
      const lost: string[] = [];
      for (const job of held) if (!(await renewLease(ctx.db, job.claim, now(), leaseUntil()))) lost.push(job.videoId);
      await recordRunner(ctx.db, {
        id: runnerId,
        kind: 'server',
        host: os.hostname(),
        pid: process.pid,
        concurrency: row.concurrency,
        started_at: row.startedAt,
        heartbeat_at: now(),
      });
      await forgetSilentRunners(ctx.db, new Date(ctx.clock.now().getTime() - RUNNER_FORGET_SECONDS * 1000).toISOString());
      return lost;
    },
    start: (job, signal) => startAttempt(ctx, job, signal),
    async release(job) {
      await releaseJob(ctx.db, job.claim, now());
    },
    async leave() {
      await forgetRunner(ctx.db, runnerId);
    },
  };
}

/**
 * Transcodes one claimed job of the queue in this process (the loop's `runJob` over the queue), as
 * the leader's runner does; for the suites that claim by hand. A job stopped by `signal` returns
 * `interrupted` and is not given back.
 */
export function runTranscodeJob(
  ctx: AppContext,
  job: TranscodeJob,
  signal: AbortSignal = new AbortController().signal,
): Promise<JobOutcome> {
  const source = localJobs(ctx, job.worker ?? '', { concurrency: 1, startedAt: ctx.clock.now().toISOString() });
  return runJob(source, heldOf(job), signal, ctx.logger);
}

export interface LocalRunnerOptions {
  concurrency: number;
  /** How often an idle runner looks at the queue (default RUNNER_POLL_MS). */
  pollMs?: number;
  /** Called after each job with its outcome (tests wait on it). */
  onJob?: (job: LocalJob, outcome: JobOutcome | 'crashed') => void;
}

export interface LocalRunner extends Started {
  id: string;
  /** Jobs being transcoded right now. */
  running(): number;
}

/** The leader's in-process runner: the runner loop over the queue, listed as `kind: 'server'`. */
export async function startLocalRunner(ctx: AppContext, opts: LocalRunnerOptions): Promise<LocalRunner> {
  const id = newRunnerId();
  const source = localJobs(ctx, id, { concurrency: opts.concurrency, startedAt: ctx.clock.now().toISOString() });
  await source.heartbeat([]);
  // What a killed process on this DATA_DIR left mid-transcode: its job went to another runner.
  const swept = await sweepTranscodeScratch(ctx.env.DATA_DIR);
  if (swept) ctx.logger.info({ runner: id, removed: swept }, 'transcode scratch left by a stopped runner removed');
  const loop = startRunnerLoop(source, { ...opts, log: ctx.logger, unref: true });
  ctx.logger.info(
    { runner: id, kind: 'server', concurrency: opts.concurrency, leaseSeconds: ctx.env.TRANSCODE_LEASE_SECONDS },
    'transcode runner started',
  );
  return {
    id,
    running: loop.running,
    async stop() {
      await loop.stop();
    },
  };
}
