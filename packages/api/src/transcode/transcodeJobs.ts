/**
 * The persistent transcode queue (table `transcode_jobs`, migration 007). Jobs are queued by the
 * queue subscriber in the same transaction as its checkpoint (exactly once per `VideoUploaded` or
 * `TranscodeRetried`), taken by the leader's worker with one conditional UPDATE (a job is never
 * taken twice), and put back when the leader that was running them is gone.
 */
import type { Db, Queryable } from '../db/types.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface TranscodeJob {
  video_id: string;
  state: JobState;
  attempt: number;
  worker: string | null;
  queued_at: string;
  updated_at: string;
}

/** Queues (or re-queues) a video's transcode. */
export async function enqueueTranscode(tx: Queryable, videoId: string, at: string): Promise<void> {
  await tx.run(
    `INSERT INTO transcode_jobs (video_id, state, attempt, worker, queued_at, updated_at) VALUES (?, 'queued', 0, NULL, ?, ?)
     ON CONFLICT (video_id) DO UPDATE SET state = 'queued', worker = NULL, queued_at = excluded.queued_at, updated_at = excluded.updated_at`,
    [videoId, at, at],
  );
}

/** Takes the oldest queued job for `worker`, or none. Safe with several callers: one UPDATE wins each row. */
export async function claimNextJob(db: Db, worker: string, at: string): Promise<TranscodeJob | undefined> {
  for (let tries = 0; tries < 5; tries++) {
    const next = await db.get<TranscodeJob>(`SELECT * FROM transcode_jobs WHERE state = 'queued' ORDER BY queued_at, video_id LIMIT 1`);
    if (!next) return undefined;
    const taken = await db.run(
      `UPDATE transcode_jobs SET state = 'running', worker = ?, attempt = attempt + 1, updated_at = ? WHERE video_id = ? AND state = 'queued'`,
      [worker, at, next.video_id],
    );
    if (taken.changes === 1) return { ...next, state: 'running', worker, attempt: Number(next.attempt) + 1 };
  }
  return undefined;
}

export async function finishJob(db: Queryable, videoId: string, state: 'done' | 'failed', at: string): Promise<void> {
  await db.run(`UPDATE transcode_jobs SET state = ?, worker = NULL, updated_at = ? WHERE video_id = ? AND state = 'running'`, [
    state,
    at,
    videoId,
  ]);
}

/**
 * Jobs left `running` by a worker that is gone (the process was killed or lost leadership) go back
 * to the queue. Called when a leader starts its worker: only the leader runs jobs, so any job still
 * running then belongs to a dead worker.
 */
export async function requeueAbandoned(db: Queryable, at: string): Promise<number> {
  const r = await db.run(`UPDATE transcode_jobs SET state = 'queued', worker = NULL, updated_at = ? WHERE state = 'running'`, [at]);
  return r.changes;
}

export const jobOf = (db: Queryable, videoId: string) => db.get<TranscodeJob>('SELECT * FROM transcode_jobs WHERE video_id = ?', [videoId]);
