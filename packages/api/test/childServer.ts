/**
 * The real server as an operator runs it (`packages/api/src/wiring/main.ts` through tsx, a child process)
 * and the real CLI, for the crash-safety and backup suites.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_CLI_ARGS, API_MAIN_ARGS } from './apiEntry.js';
import { TEST_ADMIN, TEST_DATA_KEY_SECRET, TEST_TRANSCODE_PRESET } from './harness.js';
import { EXAMPLE_SITE_CONFIG, productionSiteConfigFile } from './siteConfig.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// Node itself (the bundle, or the sources with tsx's loader: apiEntry.ts), not the tsx CLI: the CLI
// runs the program in a second process, so a SIGKILL to it would leave the real server running.

export const CHILD_TOKEN_SECRET = 'child-server-secret-child-server-secret-0123';

/** The environment of a child server or CLI over `store` (DATA_DIR, and DATABASE_URL for PostgreSQL). */
export function childEnv(store: Partial<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    TOKEN_SECRET: CHILD_TOKEN_SECRET,
    // The same master key as testEnv(), so a CLI child reads what an in-process test server sealed.
    DATA_KEY_SECRET: TEST_DATA_KEY_SECRET,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    SITE_CONFIG: EXAMPLE_SITE_CONFIG,
    // The writers all come from 127.0.0.1.
    AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000000',
    // No background ffmpeg in the suites that kill and copy servers (uploads stay queued for HLS);
    // transcoding, and its restart after a stop, is proven by transcode/transcode.int.test.ts.
    TRANSCODE_CONCURRENCY: '0',
    TRANSCODE_PRESET: TEST_TRANSCODE_PRESET,
    // No RTMP ingest (live/) in the suites' child servers: several run at once.
    LIVE_RTMP_PORT: '0',
  };
  delete env.DATABASE_URL;
  const merged = { ...env, ...store };
  // Production refuses the example's test-vector address (billing/moneyTraps.ts).
  if (merged.NODE_ENV === 'production' && merged.SITE_CONFIG === EXAMPLE_SITE_CONFIG) merged.SITE_CONFIG = productionSiteConfigFile();
  return merged;
}

export interface ChildServer {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

export function launchServer(store: Partial<Record<string, string>>): Promise<ChildServer> {
  const child = spawn(process.execPath, [...API_MAIN_ARGS], { cwd: ROOT, env: childEnv(store), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const check = setInterval(() => {
      const m = /Site running at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ child, url: m[1] as string, output: () => out, exited });
      }
    }, 25);
    void exited.then((code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

/** SIGKILL: no shutdown handler runs, nothing is flushed or cleaned up. */
export async function killHard(s: ChildServer): Promise<void> {
  s.child.kill('SIGKILL');
  await s.exited;
}

export async function stopServer(s: ChildServer): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}

/** Runs `pnpm cli …` (the CLI entry point: apiEntry.ts) over `store`; resolves with its exit code and output. */
export async function runCli(store: Partial<Record<string, string>>, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [...API_CLI_ARGS, ...args], {
      cwd: ROOT,
      env: childEnv(store),
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
