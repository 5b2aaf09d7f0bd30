// Shared by the bench scripts: a free loopback port, a process's RSS, and the real API entry point
// started as a child process on a throwaway embedded store with a bench admin.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../../scripts/freePort.mjs';
import { ownChild } from './ownChildren.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const BENCH_ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };

export { freePort };

/**
 * `node …` arguments of the API's entry points: the built bundles with API_CHILD=dist (what `pnpm
 * test` sets after building, and what production runs), else the sources through tsx's loader.
 */
const fromDist = process.env.API_CHILD === 'dist';
export const API_MAIN_ARGS = fromDist ? ['packages/api/dist/main.js'] : ['--import', 'tsx', 'packages/api/src/wiring/main.ts'];
export const API_CLI_ARGS = fromDist ? ['packages/api/dist/cli.js'] : ['--import', 'tsx', 'packages/api/src/cli/main.ts'];

/**
 * One call to the API at `baseUrl` (JSON in, the envelope's `data` out); anything but a successful
 * envelope throws with the status and the error, so a bench never measures a failed setup.
 */
export async function apiCall(baseUrl, method, p, body, token) {
  const res = await fetch(`${baseUrl}/api${p}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok || !json?.success) throw new Error(`${method} ${p}: ${res.status} ${json?.error ?? JSON.stringify(json)}`);
  return json.data;
}

/** Resident memory of a process, in MB (Linux /proc). */
export const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

/** Starts `packages/api/src/wiring/main.ts` on a free port over `dataDir`; resolves once it is listening. */
export async function startBenchServer(dataDir, extraEnv = {}, nodeArgs = []) {
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    // The address the bench (and its browser) uses: links and the same-origin check follow it.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    TOKEN_SECRET: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    ...extraEnv,
  };
  const child = ownChild(
    spawn(process.execPath, [...nodeArgs, ...API_MAIN_ARGS], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Site running at')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return { child, url, admin: { ...BENCH_ADMIN } };
}

/**
 * A site config for a production start (`NODE_ENV=production`): the example with a receiving
 * address of its own (20 random bytes' P2WPKH), since production refuses the example's published
 * test-vector address (packages/api/src/billing/moneyTraps.ts). Written into `dir`; returns its path.
 */
export async function productionSiteConfig(dir) {
  const fromApi = createRequire(path.join(ROOT, 'packages/api/package.json'));
  const { Address, NETWORK } = await import(pathToFileURL(fromApi.resolve('@scure/btc-signer')).href);
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'site.config.example.json'), 'utf8'));
  config.bitcoin.address = Address(NETWORK).encode({ type: 'wpkh', hash: randomBytes(20) });
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'site.config.production.json');
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}
