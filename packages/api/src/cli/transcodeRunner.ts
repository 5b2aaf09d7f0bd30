/**
 * `pnpm cli transcode-runner [--concurrency N]`: a long-running transcode runner for another machine
 * (or beside the API with TRANSCODE_IN_SERVER=false). It builds the server's context (same
 * DATABASE_URL, secrets and media store; its DATA_DIR is its own), takes jobs from the queue under a
 * lease (transcode/runner.ts) and records their progress and outcome as the Transcode* events the
 * admin library shows. SIGTERM or SIGINT: ffmpeg is stopped and the jobs are given back to the queue.
 * Unlike the other commands it runs beside the server, never instead of it.
 */
import { closeContext, createContext, describeStore } from '../context.js';
import { startMetricsListener } from '../metrics/index.js';
import { allProjections } from '../modules.js';
import { startTranscodeRunner } from '../transcode/index.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

export const transcodeRunner: CliCommand = {
  summary: 'transcode queued videos until stopped (SIGTERM gives running jobs back): [--concurrency N]',
  async run({ env, site, args }) {
    const { flags } = parseFlags(args);
    const concurrency = flags.concurrency === undefined ? env.TRANSCODE_CONCURRENCY : Number(flags.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      console.error('A runner needs --concurrency N or TRANSCODE_CONCURRENCY of at least 1 (the number of transcodes it runs at once).');
      return 2;
    }
    if (!env.DATABASE_URL)
      console.warn(
        'Note: no DATABASE_URL, so this runner uses the embedded SQLite store in DATA_DIR; runners on other machines need PostgreSQL.',
      );
    const ctx = await createContext(env, site, allProjections());
    try {
      const metrics = await startMetricsListener(env, ctx.metrics);
      const runner = await startTranscodeRunner(ctx, {
        kind: 'runner',
        concurrency,
        onJob: (job, outcome) => ctx.logger.info({ videoId: job.video_id, outcome }, 'transcode job ended'),
      });
      console.log(
        `Transcode runner ${runner.id} running ${concurrency} at once (store: ${describeStore(env)}, lease ${env.TRANSCODE_LEASE_SECONDS} s${metrics ? `, metrics at ${metrics.url}/metrics` : ''})`,
      );
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      });
      console.log(`${signal}: stopping; running jobs go back to the queue`);
      await runner.stop();
      await metrics?.stop();
      return 0;
    } finally {
      await closeContext(ctx);
    }
  },
};
