/**
 * `pnpm cli transcode-runner --server URL` as child processes, for the suites that run token runners
 * beside an API process, holding nothing of the site's (runners.int.test.ts, remoteRunner.int.test.ts,
 * media/s3Runners.int.test.ts on the object store, the deployment suites, the cross-process browser
 * journey). Node itself, so a SIGKILL reaches the runner, not a wrapper.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_CLI_ARGS } from '../../test/apiEntry.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface Runner {
  child: ChildProcess;
  pid: number;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * `env -i PATH=… HOME=… RUNNER_TOKEN=… node cli transcode-runner --server URL`: a runner as an
 * operator runs one on another machine, with nothing of the site's in its environment (no
 * RUNNER_TOKEN when `token` is undefined).
 */
export function spawnTokenRunner(server: string, token: string | undefined, home: string): ChildProcess {
  const env: Record<string, string> = { PATH: process.env.PATH as string, HOME: home };
  if (token !== undefined) env.RUNNER_TOKEN = token;
  return spawn(process.execPath, [...API_CLI_ARGS, 'transcode-runner', '--server', server, '--scratch', path.join(home, 'scratch')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A token runner (spawnTokenRunner); resolves once it says it runs. */
export const startTokenRunner = (server: string, token: string, home: string): Promise<Runner> =>
  running(spawnTokenRunner(server, token, home));

function running(child: ChildProcess): Promise<Runner> {
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = setInterval(() => {
      if (/Transcode runner \S+ running/.test(out)) {
        clearInterval(check);
        resolve({ child, pid: child.pid as number, output: () => out, exited });
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(check);
      reject(new Error(`runner exited with ${code}:\n${out}`));
    });
  });
}

/** SIGKILLs every process still running. */
export async function killAll(procs: ({ child: ChildProcess; exited: Promise<unknown> } | undefined)[]): Promise<void> {
  for (const p of procs) {
    if (p && p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
}

/** Polls `fn` every 100 ms until it returns something other than undefined. */
export async function waitFor<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits for the runner's line that ends the job on `videoId` with `outcome`. A runner records a
 * completion (what the API then shows) and only after removing its scratch folder logs the job's
 * end: on a loaded machine the API answers 'completed' before that line is written (a fresh
 * clone's run failed runners.int and s3Runners.int on it).
 */
export function jobEnded(runner: Runner, videoId: string, outcome: 'completed' | 'unavailable'): Promise<true> {
  // The runner loop's line that ends a job (runnerLoop.ts).
  const line = new RegExp(`^transcode of ${videoId} ${outcome}`, 'm');
  return waitFor(async () => (line.test(runner.output()) ? true : undefined));
}

/** Opens the FIFO for writing once ffmpeg has it open for reading. */
export async function openWriter(fifo: string): Promise<number> {
  return waitFor(async () => {
    try {
      return fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      return undefined;
    }
  });
}
