/**
 * The transcode worker: runs in the leader only (the module's `background`), takes queued jobs up
 * to TRANSCODE_CONCURRENCY at once, and on stop kills its ffmpeg processes and leaves their jobs
 * `running`, so the next leader (or this one after a restart) queues them again and starts over.
 */
import os from 'node:os';
import type { AppContext } from '../context.js';
import type { Started } from '../module.js';
import { runTranscodeJob } from './transcode.service.js';
import { claimNextJob, requeueAbandoned } from './transcodeJobs.js';

export const WORKER_POLL_MS = 1000;

export async function startTranscodeWorker(ctx: AppContext): Promise<Started | undefined> {
  const concurrency = ctx.env.TRANSCODE_CONCURRENCY;
  if (concurrency < 1) return undefined;
  const worker = `${os.hostname()}:${process.pid}`;
  const requeued = await requeueAbandoned(ctx.db, ctx.clock.now().toISOString());
  if (requeued) ctx.logger.info({ requeued }, 'transcodes interrupted by a stop queued again');
  const abort = new AbortController();
  const running = new Set<Promise<unknown>>();
  let polling = false;

  async function poll() {
    if (polling || abort.signal.aborted) return;
    polling = true;
    try {
      while (running.size < concurrency && !abort.signal.aborted) {
        const job = await claimNextJob(ctx.db, worker, ctx.clock.now().toISOString());
        if (!job) break;
        const run = runTranscodeJob(ctx, job, abort.signal)
          .catch((err) => ctx.logger.error({ err, videoId: job.video_id }, 'transcode job crashed'))
          .finally(() => {
            running.delete(run);
            void poll();
          });
        running.add(run);
      }
    } catch (err) {
      ctx.logger.warn({ err }, 'transcode queue poll failed; will retry');
    } finally {
      polling = false;
    }
  }

  const timer = setInterval(() => void poll(), WORKER_POLL_MS);
  timer.unref();
  void poll();
  return {
    async stop() {
      clearInterval(timer);
      abort.abort();
      await Promise.allSettled([...running]);
    },
  };
}
