/**
 * The transcode queue and its runners on /metrics, from the same queries as /api/health, once per
 * scrape. The runner label is bounded: a runner leaves the set when it stops, or 15 minutes after it
 * went silent.
 */
import type { AppContext } from '../kernel/context.js';
import type { ModuleGauge } from '../metrics/index.js';
import { onceAtATime } from '../shared/onceAtATime.js';
import { queueStatus } from './runnerRegistry.js';

export function transcodeGauges(ctx: AppContext): ModuleGauge[] {
  const transcode = onceAtATime(() => queueStatus(ctx.db, ctx.clock.now()));
  return [
    {
      name: 'transcode_queue_depth',
      help: 'Transcode jobs waiting for a runner (queued, or left by a runner whose lease passed)',
      read: async () => (await transcode()).queued,
    },
    {
      name: 'transcode_jobs_running',
      help: 'Transcode jobs being run under a live lease, on every runner',
      read: async () => (await transcode()).running,
    },
    {
      name: 'transcode_runner_heartbeat_age_seconds',
      help: 'Seconds since each transcode runner’s last heartbeat (runners seen in the last 15 minutes)',
      labelNames: ['runner', 'kind'],
      read: async () => (await transcode()).runners.map((r) => ({ labels: { runner: r.id, kind: r.kind }, value: r.heartbeatAgeSeconds })),
    },
  ];
}
