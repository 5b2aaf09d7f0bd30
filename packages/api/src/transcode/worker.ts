/**
 * The API's own transcode runner: started in the leader only (the module's `background`) unless
 * TRANSCODE_IN_SERVER=false (transcoding left to `pnpm cli transcode-runner` processes) or
 * TRANSCODE_CONCURRENCY=0. It is a runner like the others (runner.ts): jobs under a lease, given back
 * when leadership is lost or the server stops, taken by another runner when this process dies.
 */
import type { AppContext } from '../context.js';
import type { Started } from '../module.js';
import { startTranscodeRunner } from './runner.js';

export async function startTranscodeWorker(ctx: AppContext): Promise<Started | undefined> {
  if (!ctx.env.TRANSCODE_IN_SERVER || ctx.env.TRANSCODE_CONCURRENCY < 1) return undefined;
  return startTranscodeRunner(ctx, { kind: 'server', concurrency: ctx.env.TRANSCODE_CONCURRENCY });
}
