/**
 * The CLI as an operator meets it (the real entry point through tsx, a child process): `--help`, `-h`,
 * `help` and no arguments print the usage with every command on stdout and exit 0; an unknown command
 * exits 2 with the usage; and `migrate` on an empty DATA_DIR with no secrets set takes the server's dev
 * defaults (it exited 2 after applying every migration), and a server started afterwards runs on the
 * same generated DATA_KEY_SECRET and serves a member registered then.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { API_CLI_ARGS } from '../../test/apiEntry.js';
import { childEnv, launchServer, stopServer } from '../../test/childServer.js';
import { apiClient, forEachStore, freshStore, tmpDir } from '../../test/harness.js';
import { adminLogin, registerMember } from '../identity/identity.testkit.js';
import { commands } from './commands.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** No secret in the environment: what `npm run site` and a new operator start with. */
const NO_SECRETS = { TOKEN_SECRET: '', DATA_KEY_SECRET: '', MFA_KEY_SECRET: '' };

async function cli(store: Partial<Record<string, string>>, args: string[]) {
  try {
    const r = await promisify(execFile)(process.execPath, [...API_CLI_ARGS, ...args], { cwd: ROOT, env: childEnv(store) });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

it('--help, -h, help and no arguments print every command on stdout and exit 0; an unknown command exits 2', async () => {
  const dataDir = tmpDir('members-cli-help-');
  try {
    for (const args of [['--help'], ['-h'], ['help'], []]) {
      const r = await cli({ DATA_DIR: dataDir }, args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toMatch(/^Usage: pnpm cli <command>/);
      for (const name of Object.keys(commands)) expect(r.stdout).toContain(`pnpm cli ${name} `);
      expect(r.stdout + r.stderr).not.toMatch(/Unknown command/);
    }
    const unknown = await cli({ DATA_DIR: dataDir }, ['frobnicate', '--now']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command: frobnicate --now');
    for (const name of Object.keys(commands)) expect(unknown.stderr).toContain(`pnpm cli ${name} `);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

forEachStore('cli on dev defaults', (kind) => {
  it('migrate on an empty DATA_DIR with no secrets set succeeds, and the server then runs on the same dev defaults', async () => {
    const store = await freshStore(kind);
    const env = { ...store.env, ...NO_SECRETS };
    try {
      const migrated = await cli(env, ['migrate']);
      expect(migrated.stderr).not.toMatch(/is not set/);
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toMatch(/Schema at migration \d+/);
      const secret = fs.readFileSync(path.join(store.dataDir, 'dev-data-key-secret'), 'utf8');
      expect(secret.length).toBeGreaterThanOrEqual(32);

      const server = await launchServer(env);
      try {
        const api = apiClient(server.url);
        const m = await registerMember(api);
        const admin = await adminLogin(api);
        const pending = await api.get('/admin/users/pending', admin.token);
        expect(JSON.stringify(pending.body)).toContain(m.email);
      } finally {
        await stopServer(server);
      }
      expect(fs.readFileSync(path.join(store.dataDir, 'dev-data-key-secret'), 'utf8')).toBe(secret);
      // A second CLI command reads the same secrets (and the member's sealed fields with them).
      const verify = await cli(env, ['audit', 'verify']);
      expect(verify.code).toBe(0);
    } finally {
      await store.cleanup();
    }
  }, 120_000);
});
