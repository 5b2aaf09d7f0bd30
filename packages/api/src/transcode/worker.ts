/**
 * The API's own transcode runner: started in the leader only (the module's `background`) unless
 * TRANSCODE_IN_SERVER=false (transcoding left to token runners, `pnpm cli transcode-runner --server
 * URL`) or TRANSCODE_CONCURRENCY=0. It is the same runner loop as a token runner's (runnerLoop.ts)
 * over the queue itself (localJobs.ts): jobs under a lease, given back when leadership is lost or
 * the server stops, taken by another runner when this process dies.
 */
import type { AppContext } from '../kernel/context.js';
import type { Started } from '../kernel/module.js';
import { startLocalRunner } from './localJobs.js';

export async function startTranscodeWorker(ctx: AppContext): Promise<Started | undefined> {
  if (!ctx.env.TRANSCODE_IN_SERVER || ctx.env.TRANSCODE_CONCURRENCY < 1) return undefined;
  return startLocalRunner(ctx, { concurrency: ctx.env.TRANSCODE_CONCURRENCY });
}
