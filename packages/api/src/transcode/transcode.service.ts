/**
 * The transcode use cases shared by both sides of a runner (localJobs.ts in the leader,
 * remoteRunners.service.ts for token runners): each step of an attempt recorded as an event through
 * the transcode decider, the start of a claimed job's attempt, whether the media store is down, how
 * long a source URL lives; and an admin's retry of a failed transcode.
 */

import { findVideo, type VideoRow } from '../catalog/index.js';
import type { Queryable } from '../db/types.js';
import { aggregate } from '../eventstore/commandHandler.js';
import type { AppContext } from '../kernel/context.js';
import { type MediaStorage, MediaStoreError } from '../media/index.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { type Result, success } from '../shared/result.js';
import { TranscodeError } from './hlsTranscoder.js';
import { planLadder, type Rendition } from './ladder.js';
import { type TranscodeCommand, transcodeDecider, transcodeStreamId } from './transcode.decider.js';
import { assertLease, finishJob, type JobClaim } from './transcodeJobs.js';

const transcodes = aggregate(transcodeDecider, transcodeStreamId);

export const WORKER: Caller = { actorId: null, actor: 'transcode-worker' };

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
 * How long ffmpeg's presigned URL of the original stays valid: as long as the job can need it, not
 * longer (a URL that leaks anyway stops working soon). 10 minutes plus six times the video's
 * duration (a ladder of five renditions of a 4K source on a slow runner encodes at ~0.2× real time),
 * at most 6 hours.
 */
export const transcodeReadSeconds = (durationSeconds: number) => Math.min(6 * 3600, 600 + Math.ceil(6 * Math.max(0, durationSeconds)));

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

/** The queue's clock for one context: now, the end of a lease taken now, and the lease check of a claim. */
export function clockOf(ctx: AppContext) {
  const now = () => ctx.clock.now().toISOString();
  const leaseUntil = () => new Date(ctx.clock.now().getTime() + ctx.env.TRANSCODE_LEASE_SECONDS * 1000).toISOString();
  return { now, leaseUntil, held: (claim: JobClaim) => (tx: Queryable) => assertLease(tx, claim, now(), leaseUntil()) };
}

/** A claimed job's attempt, started: the video, its planned ladder and the attempt's number. */
export interface StartedAttempt {
  row: VideoRow;
  renditions: Rendition[];
  attempt: number;
}

/**
 * Starts the attempt of a claimed job, for either job source: the video (a deleted one ends the job,
 * `skipped`), the store (nothing starts while it is down, `unavailable`: the lease passes and the job
 * is taken again later), the ladder planned from the video's size, and `TranscodeStarted` under the
 * claim (refused: the job ends, `skipped`). A ladder with no rendition is the caller's failure to record.
 */
export async function startClaimedAttempt(ctx: AppContext, claim: JobClaim): Promise<StartedAttempt | 'skipped' | 'unavailable'> {
  const { now, held } = clockOf(ctx);
  const { videoId } = claim;
  const row = await findVideo(ctx.db, videoId, { includeUnpublished: true });
  if (!row) {
    await finishJob(ctx.db, claim, 'done', now());
    return 'skipped';
  }
  if (await storeDown(ctx.media)) {
    ctx.logger.warn({ videoId, runner: claim.worker }, 'media store unreachable; the transcode waits for the lease to pass');
    return 'unavailable';
  }
  const renditions = planLadder({ width: Number(row.width), height: Number(row.height) });
  const started = await decide(
    ctx,
    videoId,
    { type: 'StartTranscode', data: { videoId, renditions: renditions.map((r) => r.name), at: now() } },
    WORKER,
    held(claim),
  );
  if (!started.ok) {
    await finishJob(ctx.db, claim, 'done', now());
    return 'skipped';
  }
  return { row, renditions, attempt: started.state.attempt };
}
