/**
 * Test-only: transcode one video now, in the caller (no worker, no waiting): queue it, take its job
 * and run it exactly as the worker would, so suites that run without TRANSCODE_CONCURRENCY get a
 * real ladder for the videos they need.
 */
import type { RunningServer } from '../wiring/server.js';
import { runTranscodeJob } from './localJobs.js';
import type { JobOutcome } from './runnerLoop.js';
import { enqueueTranscode, jobOf } from './transcodeJobs.js';

export async function transcodeForTest(server: Pick<RunningServer, 'ctx' | 'subscribers'>, videoId: string): Promise<JobOutcome> {
  const { ctx } = server;
  // The queue subscriber first: its own (later) enqueue of this upload would hand the job back to the
  // queue under this claim, and the attempt would end `lost` (seen on PostgreSQL, where it catches up later).
  await server.subscribers.drain();
  const at = ctx.clock.now().toISOString();
  await enqueueTranscode(ctx.db, videoId, at);
  const lease = new Date(ctx.clock.now().getTime() + 3600_000).toISOString();
  await ctx.db.run(
    `UPDATE transcode_jobs SET state = 'running', worker = 'test', attempt = attempt + 1, lease_expires_at = ? WHERE video_id = ?`,
    [lease, videoId],
  );
  const job = await jobOf(ctx.db, videoId);
  if (!job) throw new Error(`no transcode job for ${videoId}`);
  return runTranscodeJob(ctx, job);
}
