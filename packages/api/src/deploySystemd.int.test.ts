/**
 * The systemd shape of the deployment, started: deploy/members-api@.service's `ExecStart` run as
 * systemd would run it, in the unit's directory layout rebuilt under a temporary root
 * (`/opt/members` the built checkout, `/opt/node24/node_modules/node/bin/node` this Node,
 * `/etc/members/api.env` deploy/api.env.example with its CHANGE-ME placeholders filled with generated
 * values, `/var/lib/members` the data directory), with only the environment systemd gives a
 * service: its PATH, the unit's `Environment=` and the EnvironmentFile read the way systemd reads
 * it. The production server must answer `/api/health` on the instance's port. Then
 * `systemd-analyze verify` (Debian's systemd package) on the unit.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/freePort.mjs';
import { type FreshStore, freshStore, storeKinds } from '../test/harness.js';
import { productionSiteConfigFile } from '../test/siteConfig.js';
import { API_ENV_EXAMPLE, PLACEHOLDER, parseEnvironmentFile, readUnit, serviceEnvironment, UNIT_FILE } from './deploySystemd.testkit.js';
import { startSmtpServer } from './mail/smtpServer.testkit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

/**
 * deploy/api.env.example as an operator fills it in: every CHANGE-ME a generated value (secrets as
 * `openssl rand -hex 32` gives them), the database and mail server the ones this test runs, paths
 * under the temporary root. Everything else (quotes, comments, PUBLIC_URL) as shipped.
 */
function fillExample(root: string, databaseUrl: string, smtpUrl: string): string {
  return fs
    .readFileSync(API_ENV_EXAMPLE, 'utf8')
    .split('\n')
    .map((line) => {
      if (line.startsWith('DATABASE_URL=')) return `DATABASE_URL=${databaseUrl}`;
      if (line.startsWith('SMTP_URL=')) return `SMTP_URL=${smtpUrl}`;
      return line
        .replaceAll(PLACEHOLDER, () => randomBytes(32).toString('hex'))
        .replace(/=(["']?)\/(var\/lib|etc)\/members/, (_, q: string, dir: string) => `=${q}${root}/${dir}/members`);
    })
    .join('\n');
}

describe.runIf(storeKinds.includes('postgres'))('deploy/members-api@.service with deploy/api.env.example', () => {
  let root: string;
  let store: FreshStore;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let child: ChildProcess | undefined;
  let out = '';

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'members-systemd-'));
    store = await freshStore('postgres');
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await smtp?.close();
    await store?.cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('starts the production server as ExecStart does and answers /api/health on the instance port', async () => {
    expect(fs.existsSync(path.join(ROOT, 'packages/api/dist/main.js')), 'packages/api/dist/main.js: run pnpm build first').toBe(true);
    const port = await freePort();
    const unit = readUnit(UNIT_FILE, String(port));
    const at = (p: string) => path.join(root, p);
    // The unit's layout: the checkout at WorkingDirectory, Node where ExecStart names it.
    fs.mkdirSync(path.dirname(at(unit.workingDirectory)), { recursive: true });
    fs.symlinkSync(ROOT, at(unit.workingDirectory));
    const node = unit.execStart[0] as string;
    fs.mkdirSync(path.dirname(at(node)), { recursive: true });
    fs.symlinkSync(process.execPath, at(node));
    fs.mkdirSync(at('/var/lib/members'), { recursive: true });
    fs.mkdirSync(at('/etc/members'), { recursive: true });
    fs.copyFileSync(productionSiteConfigFile(), at('/etc/members/site.config.json'));
    expect(unit.environmentFiles).toEqual(['/etc/members/api.env']);
    fs.writeFileSync(at('/etc/members/api.env'), fillExample(root, store.env.DATABASE_URL as string, smtp.url), { mode: 0o600 });

    const env = serviceEnvironment(
      unit,
      unit.environmentFiles.map((f) => parseEnvironmentFile(fs.readFileSync(at(f), 'utf8'))),
    );
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), INSTANCE_ID: `api-${port}` });
    expect(env.MAIL_FROM).toBe('Members <no-reply@members.example.com>');
    // ProtectSystem=strict: the data directory must be one the unit may write.
    expect(unit.readWritePaths.map(at)).toContain(env.DATA_DIR);

    child = spawn(at(node), unit.execStart.slice(1), { cwd: at(unit.workingDirectory), env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child?.once('exit', r));
    const until = Date.now() + 60_000;
    let health: { status: number; body: { status?: string; data?: { status?: string } } } | undefined;
    while (!health && Date.now() < until) {
      const early = await Promise.race([exited, new Promise((r) => setTimeout(r, 250, 'running'))]);
      if (early !== 'running') throw new Error(`the server exited with ${early}:\n${out}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
      if (res) health = { status: res.status, body: (await res.json()) as { status?: string; data?: { status?: string } } };
    }
    expect({ status: health?.status, health: health?.body.data?.status ?? health?.body.status }, out).toEqual({
      status: 200,
      health: 'ok',
    });
    expect(out).not.toContain('[dev default]');
  });

  it('is accepted by systemd-analyze verify (Debian systemd), warnings included', async () => {
    if (!fs.existsSync(SYSTEMD_ANALYZE))
      throw new Error(`${SYSTEMD_ANALYZE} is missing: install Debian's systemd package (scripts/test.mjs and .ci/run do)`);
    // verify checks that ExecStart's program exists: a copy of the unit naming this Node instead.
    const dir = fs.mkdtempSync(path.join(root, 'unit-'));
    const text = fs.readFileSync(UNIT_FILE, 'utf8');
    const node = readUnit(UNIT_FILE, '8081').execStart[0] as string;
    fs.writeFileSync(path.join(dir, 'members-api@.service'), text.replace(`ExecStart=${node} `, `ExecStart=${process.execPath} `));
    expect(fs.readFileSync(path.join(dir, 'members-api@.service'), 'utf8')).not.toContain(node);
    const r = await promisify(execFile)(SYSTEMD_ANALYZE, ['verify', './members-api@8081.service'], { cwd: dir }).then(
      (x) => ({ code: 0, ...x }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    // Unknown or misspelt settings are only warnings (exit 0): any output fails the test.
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
