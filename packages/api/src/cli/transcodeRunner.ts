/**
 * `pnpm cli transcode-runner --server URL [--concurrency N] [--scratch DIR]`, RUNNER_TOKEN in the
 * environment: a transcode runner for another machine that holds only its token and talks HTTP to
 * the site (transcode/httpJobs.ts). It reads no other variable: no DATABASE_URL, no secret, no
 * store credential, no DATA_DIR. A wrong or revoked token: a message on stderr and exit 1.
 * SIGTERM or SIGINT: ffmpeg is stopped and the jobs are given back to the queue.
 *
 * Without `--server` it refuses (exit 2) and says how to run a token runner: the former runner that
 * built the site's whole context (DATABASE_URL, secrets, store credentials) is gone.
 */
import os from 'node:os';
import path from 'node:path';
import { RunnerTokenRefused, startRemoteRunner } from '../transcode/index.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

const CONCURRENCY_NEEDED =
  "--concurrency must be a whole number from 1 to 64: the transcodes this runner runs at once (default 1; TRANSCODE_CONCURRENCY is the API leader's, not a runner's).";

const stopSignal = () =>
  new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });

/** The runner as an HTTP client: only `--server`, `RUNNER_TOKEN` and its scratch folder. */
async function runRemote(flags: Record<string, string>): Promise<number> {
  const token = process.env.RUNNER_TOKEN;
  if (!token) {
    console.error(
      'RUNNER_TOKEN is not set: make one on a server machine with "pnpm cli runners token create NAME", or on the admin dashboard (Transcode runners).',
    );
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
        `The server ${server.origin} refused RUNNER_TOKEN (${err.reason}). Check the token, or make a new one with "pnpm cli runners token create NAME".`,
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

/** A runner started the removed way (the whole site context, without `--server`): refused, with the way that replaced it. */
function refuseFullContext(): Promise<number> {
  console.error(
    [
      'pnpm cli transcode-runner needs --server URL: a runner holds only a runner token and talks HTTP to the site.',
      '  RUNNER_TOKEN=rnr_… pnpm cli transcode-runner --server https://your.site [--concurrency N] [--scratch DIR]',
      'Make the token on a server machine with "pnpm cli runners token create NAME", or on the admin dashboard (Transcode runners).',
      'The runner needs no DATABASE_URL, secret or store credential (docs/transcode-runners.md); the former runner with the',
      "site's whole context is gone. To transcode in the API's leader instead, keep TRANSCODE_IN_SERVER=true and TRANSCODE_CONCURRENCY ≥ 1.",
    ].join('\n'),
  );
  return Promise.resolve(2);
}

export const transcodeRunner: CliCommand = {
  summary: 'transcode queued videos until stopped: --server URL with RUNNER_TOKEN [--concurrency N] [--scratch DIR]',
  runBare(args) {
    const { flags } = parseFlags(args);
    return flags.server === undefined ? refuseFullContext() : runRemote(flags);
  },
  // Never reached: runBare answers every call (the command reads nothing of the site's environment).
  run: ({ args }) => transcodeRunner.runBare?.(args) ?? refuseFullContext(),
};
