/**
 * The persistent transcode queue (table `transcode_jobs`, migrations 007 and 008). Jobs are queued
 * by the queue subscriber in the same transaction as its checkpoint (exactly once per `VideoUploaded`
 * or `TranscodeRetried`) and taken by runners under a lease: the leader's in-process runner
 * (localJobs.ts), and token runners (`pnpm cli transcode-runner --server URL`, httpJobs.ts) through
 * the runner API (remoteRunners.service.ts):
 *
 * - a claim takes the oldest job that is queued or whose lease has passed (its runner died), in one
 *   transaction (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so claimers never wait on each other or take
 *   one row twice; SQLite: its single writer), and counts one more `attempt`;
 * - a claim is `(video_id, worker, attempt)`: every later write of the runner (renewal, progress,
 *   outcome, giving the job back) is conditional on it, so a runner whose job was taken by another
 *   after its lease passed changes nothing, even with the same runner id.
 *
 * Times are ISO strings from the callers' clocks (runners on several machines need NTP: a clock
 * ahead by more than the lease takes jobs early).
 */
import type { Db, Queryable } from '../db/types.js';
import { JobLost } from './runnerLoop.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface TranscodeJob {
  video_id: string;
  state: JobState;
  attempt: number;
  worker: string | null;
  queued_at: string;
  updated_at: string;
  lease_expires_at: string | null;
}

/** What identifies one claim of a job: a newer claim (another runner, or a later attempt) is a different one. */
export interface JobClaim {
  videoId: string;
  worker: string;
  attempt: number;
}

export const claimOf = (job: TranscodeJob): JobClaim => ({ videoId: job.video_id, worker: job.worker ?? '', attempt: Number(job.attempt) });

/** The runner lost its claim: the lease passed and another runner took the job (or it was deleted or re-queued). The runner loop's `JobLost`. */
export class LeaseLostError extends JobLost {
  constructor(claim: JobClaim) {
    super(`transcode job of ${claim.videoId} (attempt ${claim.attempt}) is no longer held by ${claim.worker}`);
    this.name = 'LeaseLostError';
  }
}

/** Queues (or re-queues) a video's transcode. */
export async function enqueueTranscode(tx: Queryable, videoId: string, at: string): Promise<void> {
  await tx.run(
    `INSERT INTO transcode_jobs (video_id, state, attempt, worker, queued_at, updated_at) VALUES (?, 'queued', 0, NULL, ?, ?)
     ON CONFLICT (video_id) DO UPDATE SET state = 'queued', worker = NULL, lease_expires_at = NULL, queued_at = excluded.queued_at, updated_at = excluded.updated_at`,
    [videoId, at, at],
  );
}

/** Jobs a runner may take at `at`: queued, or running under a lease that has passed (none: left by a version without leases). */
const CLAIMABLE = `(state = 'queued' OR (state = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ?)))`;

/**
 * Takes the oldest claimable job for `worker` with a lease until `leaseUntil`, or none. Several
 * runners may call this at once on one database: each job goes to exactly one of them.
 */
export async function claimNextJob(db: Db, worker: string, at: string, leaseUntil: string): Promise<TranscodeJob | undefined> {
  return db.transaction(async (tx) => {
    const lock = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const next = await tx.get<{ video_id: string }>(
      `SELECT video_id FROM transcode_jobs WHERE ${CLAIMABLE} ORDER BY queued_at, video_id LIMIT 1${lock}`,
      [at],
    );
    if (!next) return undefined;
    const taken = await tx.run(
      `UPDATE transcode_jobs SET state = 'running', worker = ?, attempt = attempt + 1, lease_expires_at = ?, updated_at = ?
       WHERE video_id = ? AND ${CLAIMABLE}`,
      [worker, leaseUntil, at, next.video_id, at],
    );
    if (taken.changes !== 1) return undefined;
    return tx.get<TranscodeJob>('SELECT * FROM transcode_jobs WHERE video_id = ?', [next.video_id]);
  });
}

const HELD = `video_id = ? AND state = 'running' AND worker = ? AND attempt = ?`;
const held = (c: JobClaim) => [c.videoId, c.worker, c.attempt];

/** Extends the claim's lease to `leaseUntil`; false when the claim is no longer held (the runner must stop). */
export async function renewLease(db: Queryable, claim: JobClaim, at: string, leaseUntil: string): Promise<boolean> {
  const r = await db.run(`UPDATE transcode_jobs SET lease_expires_at = ?, updated_at = ? WHERE ${HELD}`, [leaseUntil, at, ...held(claim)]);
  return r.changes === 1;
}

/** Renews the claim inside `tx` (an append's transaction) or throws `LeaseLostError`, rolling the append back. */
export async function assertLease(tx: Queryable, claim: JobClaim, at: string, leaseUntil: string): Promise<void> {
  if (!(await renewLease(tx, claim, at, leaseUntil))) throw new LeaseLostError(claim);
}

/** Ends the claim as `done` or `failed`; false when it was no longer held (nothing changed). */
export async function finishJob(db: Queryable, claim: JobClaim, state: 'done' | 'failed', at: string): Promise<boolean> {
  const r = await db.run(`UPDATE transcode_jobs SET state = ?, worker = NULL, lease_expires_at = NULL, updated_at = ? WHERE ${HELD}`, [
    state,
    at,
    ...held(claim),
  ]);
  return r.changes === 1;
}

/** Gives a claimed job back to the queue (a runner stopping cleanly): the next runner takes it at once. */
export async function releaseJob(db: Queryable, claim: JobClaim, at: string): Promise<boolean> {
  const r = await db.run(
    `UPDATE transcode_jobs SET state = 'queued', worker = NULL, lease_expires_at = NULL, updated_at = ? WHERE ${HELD}`,
    [at, ...held(claim)],
  );
  return r.changes === 1;
}

export const jobOf = (db: Queryable, videoId: string) => db.get<TranscodeJob>('SELECT * FROM transcode_jobs WHERE video_id = ?', [videoId]);
