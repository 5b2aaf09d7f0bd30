/**
 * A short run of the load benchmark (bench/load.mjs) exactly as `pnpm bench` runs it, only briefer
 * and with fewer members: the real server as a child process, wrk on loopback, the members'
 * mix and both admins' writes. It must finish with zero errors (no timing is asserted: the machine
 * is shared).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { EXAMPLE_SITE_CONFIG } from './siteConfig.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Row {
  name: string;
  requests: number;
  errors: number;
}

it('bench/load.mjs (wrk): members listing, opening, streaming and admins approving and verifying, with zero errors', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bench/load.mjs', '--seconds', '3', '--members', '12', '--connections', '4', '--admin-rate', '2'],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, SITE_CONFIG: EXAMPLE_SITE_CONFIG } },
  ).catch((err: { stdout?: string; stderr?: string }) => {
    throw new Error(`bench/load.mjs failed:\n${err.stdout}\n${err.stderr}`);
  });
  const line = stdout.split('\n').find((l) => l.startsWith('LOAD_RESULT '));
  expect(line, stdout).toBeDefined();
  const result = JSON.parse((line as string).slice('LOAD_RESULT '.length)) as { rows: Row[]; total: Row };
  expect(result.total.errors, stdout).toBe(0);
  for (const row of result.rows) expect([row.name, row.requests > 0, row.errors]).toEqual([row.name, true, 0]);
}, 600_000);
