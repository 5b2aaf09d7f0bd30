/**
 * The transcode module: every uploaded video gets an HLS ladder (ladder.ts) made by runners (one
 * loop, runnerLoop.ts: in the leader over the queue itself, worker.ts and localJobs.ts, and/or token
 * runners, `pnpm cli transcode-runner --server URL` on any machine, over the runner API, httpJobs.ts)
 * from a persistent queue with leases (transcodeJobs.ts) the log feeds
 * (queue.subscriber.ts); each attempt is recorded as `Transcode*` events (transcode.decider.ts),
 * which the catalog projection turns into the video's status, progress and renditions.
 */
import type { AppModule } from '../kernel/module.js';
import { transcodeGauges } from './gauges.js';
import { transcodeQueueSubscriber } from './queue.subscriber.js';
import { runnerApiRoutes } from './runnerApi.routes.js';
import { transcodeRoutes } from './transcode.routes.js';
import { startTranscodeWorker } from './worker.js';

export { sequenceIv } from './hlsPackaging.js';
export { RunnerTokenRefused, startRemoteRunner } from './httpJobs.js';
export { queueStatus } from './runnerRegistry.js';
export { createRunnerToken, listRunnerTokens, type RunnerTokenRow, revokeRunnerToken } from './runnerTokens.js';
export type { RenditionInfo } from './transcode.decider.js';
export { KEY_WINDOW_SEGMENTS, keyFor, keyOf, windowKey } from './videoKeys.js';

export const transcodeModule: AppModule = {
  name: 'transcode',
  subscribers: () => [transcodeQueueSubscriber],
  background: (ctx) => startTranscodeWorker(ctx),
  gauges: transcodeGauges,
  routes(api, ctx) {
    transcodeRoutes(api, ctx);
    runnerApiRoutes(api, ctx);
  },
};
