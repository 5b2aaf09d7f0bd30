/**
 * The transcode module: every uploaded video gets an HLS ladder (ladder.ts) made by runners
 * (runner.ts: one in the leader, worker.ts, and/or `pnpm cli transcode-runner` processes on any
 * machine) from a persistent queue with leases (transcodeJobs.ts) the log feeds
 * (queue.subscriber.ts); each attempt is recorded as `Transcode*` events (transcode.decider.ts),
 * which the catalog projection turns into the video's status, progress and renditions.
 */
import type { AppModule } from '../module.js';
import { transcodeQueueSubscriber } from './queue.subscriber.js';
import { mountRunnerApiRoutes } from './runnerApi.routes.js';
import { mountTranscodeRoutes } from './transcode.routes.js';
import { startTranscodeWorker } from './worker.js';

export { createRunnerToken, listRunnerTokens, type RunnerTokenRow, revokeRunnerToken } from './runnerTokens.js';
export { keyOf } from './videoKeys.js';

export const transcodeModule: AppModule = {
  name: 'transcode',
  subscribers: () => [transcodeQueueSubscriber],
  background: (ctx) => startTranscodeWorker(ctx),
  routes(api, ctx) {
    mountTranscodeRoutes(api, ctx);
    mountRunnerApiRoutes(api, ctx);
  },
};
