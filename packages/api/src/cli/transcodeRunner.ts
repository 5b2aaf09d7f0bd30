/**
 * `pnpm cli transcode-runner --server URL [--concurrency N] [--scratch DIR]`, RUNNER_TOKEN in the
 * environment: a transcode runner for another machine that holds only its token and talks HTTP to
 * the site (transcode/remoteRunner.ts). It reads no other variable: no DATABASE_URL, no secret, no
 * store credential, no DATA_DIR. A wrong or revoked token: a message on stderr and exit 1.
 * SIGTERM or SIGINT: ffmpeg is stopped and the jobs are given back to the queue.
 *
 * Deprecated: without `--server` it is the former runner with the server's full context (same
 * DATABASE_URL, secrets and media store; its DATA_DIR its own), kept for the deployments that still
 * start it that way (deploy/compose.s3.yaml); it says so at start.
 */
import os from 'node:os';
import path from 'node:path';
import { closeContext, createContext, describeStore } from '../context.js';
import { startMetricsListener } from '../metrics/index.js';
import { allProjections } from '../modules.js';
import { RunnerTokenRefused, startRemoteRunner, startTranscodeRunner } from '../transcode/index.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

const CONCURRENCY_NEEDED =
  'A runner needs --concurrency N or TRANSCODE_CONCURRENCY of at least 1 (the number of transcodes it runs at once).';

const stopSignal = () =>
  new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });

/** The runner as an HTTP client: only `--server`, `RUNNER_TOKEN` and its scratch folder. */
async function runRemote(flags: Record<string, string>): Promise<number> {
  const token = process.env.RUNNER_TOKEN;
  if (!token) {
    console.error('RUNNER_TOKEN is not set: make one on a server machine with "pnpm cli runners token create NAME".');
    return 2;
  }
  let server: URL;
  try {
    server = new URL(flags.server as string);
    if (server.protocol !== 'http:' && server.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    console.error(`--server must be the site's address (https://…), not "${flags.server}"`);
    return 2;
  }
  const concurrency = flags.concurrency === undefined ? 1 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    console.error(CONCURRENCY_NEEDED);
    return 2;
  }
  const scratchDir = path.resolve(flags.scratch ?? path.join(os.tmpdir(), 'members-transcode-runner'));
  let runner: Awaited<ReturnType<typeof startRemoteRunner>>;
  try {
    runner = await startRemoteRunner({ server: server.toString(), token, concurrency, scratchDir });
  } catch (err) {
    if (err instanceof RunnerTokenRefused) {
      console.error(
        `The server ${server.origin} refused RUNNER_TOKEN (${err.message}). Check the token, or make a new one with "pnpm cli runners token create NAME".`,
      );
      return 1;
    }
    console.error(`Could not reach ${server.origin}: ${(err as Error).message}`);
    return 1;
  }
  console.log(`Transcode runner ${runner.id} running ${concurrency} at once (server: ${server.origin}, token: ${runner.tokenName})`);
  const ended = await Promise.race([stopSignal(), runner.finished.then((code) => code)]);
  if (typeof ended === 'number') return ended;
  console.log(`${ended}: stopping; running jobs go back to the queue`);
  return runner.stop();
}

export const transcodeRunner: CliCommand = {
  summary: 'transcode queued videos until stopped: --server URL with RUNNER_TOKEN [--concurrency N] [--scratch DIR]',
  runBare(args) {
    const { flags } = parseFlags(args);
    return flags.server === undefined ? undefined : runRemote(flags);
  },
  async run({ env, site, args }) {
    const { flags } = parseFlags(args);
    const concurrency = flags.concurrency === undefined ? env.TRANSCODE_CONCURRENCY : Number(flags.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      console.error(CONCURRENCY_NEEDED);
      return 2;
    }
    console.warn(
      'Deprecated: a runner without --server builds the whole site context (DATABASE_URL, secrets, store credentials). Use RUNNER_TOKEN=… pnpm cli transcode-runner --server URL.',
    );
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
      const signal = await stopSignal();
      console.log(`${signal}: stopping; running jobs go back to the queue`);
      await runner.stop();
      await metrics?.stop();
      return 0;
    } finally {
      await closeContext(ctx);
    }
  },
};
