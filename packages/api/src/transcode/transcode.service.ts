/**
 * The transcode use cases: run one queued job (the worker calls it; each step recorded as an event
 * through the transcode decider) and retry a failed one (an admin).
 */
import { findVideo } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/types.js';
import { aggregate } from '../eventstore/commandHandler.js';
import { type MediaStorage, MediaStoreError } from '../media/index.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { redactSecrets } from '../shared/redact.js';
import { type Result, success } from '../shared/result.js';
import { TranscodeError, transcodeToHls } from './hlsTranscoder.js';
import { planLadder } from './ladder.js';
import { type TranscodeCommand, transcodeDecider, transcodeStreamId } from './transcode.decider.js';
import { assertLease, claimOf, finishJob, LeaseLostError, type TranscodeJob } from './transcodeJobs.js';
import { keyFor } from './videoKeys.js';

const transcodes = aggregate(transcodeDecider, transcodeStreamId);

export const WORKER: Caller = { actorId: null, actor: 'transcode-worker' };

/** Progress is recorded sparsely: at these percentages only. */
export const PROGRESS_STEPS = [25, 50, 75];

/** `inTransaction` runs in the append's transaction: the claim's lease check (and the job's end). */
export function decide(
  ctx: AppContext,
  videoId: string,
  command: TranscodeCommand,
  caller: Caller = WORKER,
  inTransaction?: (tx: Queryable) => Promise<void>,
) {
  return transcodes(ctx.store).handle(videoId, command, eventMetadata(ctx, caller), { inTransaction });
}

/**
 * `lost`: another runner holds the job now (this one's lease passed); nothing of this attempt was published.
 * `unavailable`: the media store could not be reached; the job is left to its lease, so it is taken
 * again (by any runner) once the lease has passed, not recorded as failed.
 */
export type JobOutcome = 'completed' | 'failed' | 'skipped' | 'interrupted' | 'lost' | 'unavailable';

/** Whether `err` (or, for an ffmpeg failure, the store's state right now) says the media store is down. */
export async function storeDown(storage: MediaStorage, err?: unknown): Promise<boolean> {
  if (err instanceof MediaStoreError) return err.reason === 'unavailable';
  if (err !== undefined && !(err instanceof TranscodeError)) return false;
  return storage.check().then(
    () => false,
    (e) => e instanceof MediaStoreError && e.reason === 'unavailable',
  );
}

/**
 * Transcodes one claimed job's video into its ladder. Every write is conditional on the claim
 * (transcodeJobs.ts): each event is appended in a transaction that first renews the job's lease and
 * rolls back if another runner holds it, and the outcome event ends the job in that same
 * transaction. A job stopped by `signal` (shutdown, lost lease) returns `interrupted` and the runner
 * gives it back; its next attempt starts over.
 */
export async function runTranscodeJob(ctx: AppContext, job: TranscodeJob, signal?: AbortSignal): Promise<JobOutcome> {
  try {
    return await transcodeClaimed(ctx, job, signal);
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
    ctx.logger.warn({ videoId: job.video_id, runner: job.worker }, 'transcode job taken by another runner; this attempt publishes nothing');
    return 'lost';
  }
}

/**
 * How long ffmpeg's presigned URL of the original stays valid: as long as the job can need it, not
 * longer (a URL that leaks anyway stops working soon). 10 minutes plus six times the video's
 * duration (a ladder of five renditions of a 4K source on a slow runner encodes at ~0.2× real time),
 * at most 6 hours.
 */
export const transcodeReadSeconds = (durationSeconds: number) => Math.min(6 * 3600, 600 + Math.ceil(6 * Math.max(0, durationSeconds)));

async function transcodeClaimed(ctx: AppContext, job: TranscodeJob, signal?: AbortSignal): Promise<JobOutcome> {
  const videoId = job.video_id;
  const now = () => ctx.clock.now().toISOString();
  const claim = claimOf(job);
  const leaseUntil = () => new Date(ctx.clock.now().getTime() + ctx.env.TRANSCODE_LEASE_SECONDS * 1000).toISOString();
  const held = (tx: Queryable) => assertLease(tx, claim, now(), leaseUntil());
  const ending = (state: 'done' | 'failed') => async (tx: Queryable) => {
    if (!(await finishJob(tx, claim, state, now()))) throw new LeaseLostError(claim);
  };
  // 1. The video, if it still exists.
  const row = await findVideo(ctx.db, videoId, { includeUnpublished: true });
  const renditions = row ? planLadder({ width: Number(row.width), height: Number(row.height) }) : [];
  if (!row) {
    await finishJob(ctx.db, claim, 'done', now());
    return 'skipped';
  }
  if (signal?.aborted) return 'interrupted';
  // No attempt while the store is down: the lease passes and the job is taken again later.
  const storage = ctx.media;
  if (await storeDown(storage)) {
    ctx.logger.warn({ videoId, runner: claim.worker }, 'media store unreachable; the transcode waits for the lease to pass');
    return 'unavailable';
  }
  // 2. A new attempt.
  const started = await decide(
    ctx,
    videoId,
    { type: 'StartTranscode', data: { videoId, renditions: renditions.map((r) => r.name), at: now() } },
    WORKER,
    held,
  );
  if (!started.ok) {
    await finishJob(ctx.db, claim, 'done', now());
    return 'skipped';
  }
  const attempt = started.state.attempt;
  const fail = async (error: string) => {
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
  if (renditions.length === 0) return fail(`The source has no usable picture size (${row.width}×${row.height})`);

  // 3. ffmpeg, with progress at a few steps.
  const workspace = await storage.hlsWorkspace(videoId);
  let progress: Promise<unknown> = Promise.resolve();
  let step = 0;
  try {
    const out = await transcodeToHls({
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
      signal,
      // The last moment to find the job taken by another runner, before its ladder replaces the video's.
      beforeSwap: () => held(ctx.db),
      onProgress(fraction) {
        const percent = Math.floor(fraction * 100);
        if (step >= PROGRESS_STEPS.length || percent < (PROGRESS_STEPS[step] ?? 101)) return;
        while (step < PROGRESS_STEPS.length && percent >= (PROGRESS_STEPS[step] ?? 101)) step++;
        const p = PROGRESS_STEPS[step - 1] ?? percent;
        progress = progress
          .then(() => decide(ctx, videoId, { type: 'RecordProgress', data: { videoId, attempt, percent: p, at: now() } }, WORKER, held))
          .catch((err) => ctx.logger.warn({ err, videoId }, 'could not record transcode progress'));
      },
    });
    await progress;
    // 4. The ladder is in place: record it.
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
    ctx.logger.info({ videoId, attempt, renditions: out.renditions.map((r) => r.name), seconds: out.ffmpegSeconds }, 'transcode completed');
    return 'completed';
  } catch (err) {
    await progress;
    if (err instanceof LeaseLostError) throw err;
    if (signal?.aborted) return 'interrupted';
    if (await storeDown(storage, err)) {
      // Not the video's fault: no TranscodeFailed; the job is taken again once its lease has passed.
      ctx.logger.warn({ err, videoId, attempt }, 'media store unreachable during the transcode; the job will be retried after its lease');
      return 'unavailable';
    }
    ctx.logger.warn({ err, videoId, attempt }, 'transcode failed');
    return fail(err instanceof TranscodeError ? err.message : `Transcode failed: ${(err as Error).message}`);
  } finally {
    await workspace.done().catch((err) => ctx.logger.warn({ err, videoId }, 'could not remove the transcode scratch folder'));
  }
}

/** An admin retries a failed transcode; the queue subscriber queues it again. */
export async function retryTranscode(
  ctx: AppContext,
  videoId: string,
  caller: Caller & { actorId: string },
): Promise<Result<{ videoId: string; status: 'queued' }>> {
  const meta = eventMetadata(ctx, caller);
  const result = await transcodes(ctx.store).handle(
    videoId,
    { type: 'RetryTranscode', data: { videoId, actorId: caller.actorId, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  return success({ videoId, status: 'queued' });
}
