/**
 * Backup and restore of a site on dev defaults (no TOKEN_SECRET, MFA_KEY_SECRET or DATA_KEY_SECRET in
 * the environment: the server generated them into DATA_DIR), through the real CLI and server: the
 * backup carries the generated secrets, marked as dev defaults, the restore into an empty DATA_DIR
 * puts them back, and a server started on the result opens the members' sealed data (it stopped with
 * DataKeyError before). A backup of a site whose secrets come from the environment carries none of
 * them, restoring it without DATA_KEY_SECRET is refused up front, and with one that does not open
 * the store's data keys the restore ends with exit 1 naming the variable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer, runCli, stopServer } from '../../test/childServer.js';
import { apiClient, forEachStore, freshStore, tmpDir } from '../../test/harness.js';
import { adminLogin, registerMember } from '../identity/identity.testkit.js';
import type { BackupManifest } from './siteBackup.js';

const NO_SECRETS = { TOKEN_SECRET: '', DATA_KEY_SECRET: '', MFA_KEY_SECRET: '' };
const ENV_SECRETS = {
  TOKEN_SECRET: 'operator-token-secret-operator-token-secret-01',
  MFA_KEY_SECRET: 'operator-mfa-secret-operator-mfa-secret-01234',
  DATA_KEY_SECRET: 'operator-data-key-secret-operator-data-key-0123',
};

const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as BackupManifest;

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(fs.readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out.join('\n');
}

forEachStore('backup and restore of a site on dev defaults', (kind) => {
  it('carries the generated secrets, and the restored site starts and serves its members', async () => {
    const source = await freshStore(kind);
    const target = await freshStore(kind);
    const other = await freshStore(kind);
    const root = tmpDir('members-devbackup-');
    const servers: ChildServer[] = [];
    try {
      const sourceEnv = { ...source.env, ...NO_SECRETS };
      const server = await launchServer(sourceEnv);
      servers.push(server);
      let api = apiClient(server.url);
      const member = await registerMember(api);
      await stopServer(server);

      const backupDir = path.join(root, 'dev');
      const backup = await runCli(sourceEnv, ['backup', backupDir]);
      expect(backup.out).toMatch(/Backed up/);
      expect(backup.code).toBe(0);

      const targetEnv = { ...target.env, ...NO_SECRETS };
      const restore = await runCli(targetEnv, ['restore', backupDir]);
      expect(restore.out).toMatch(/Restored/);
      expect(restore.code).toBe(0);

      // The restored site starts on them and opens the member's sealed events.
      const restored = await launchServer(targetEnv);
      servers.push(restored);
      api = apiClient(restored.url);
      const admin = await adminLogin(api);
      const history = await api.get(`/admin/users/${member.id}/history`, admin.token);
      expect(history.status).toBe(200);
      expect(JSON.stringify(history.body)).toContain(member.email);
      const pending = await api.get('/admin/users/pending', admin.token);
      expect(JSON.stringify(pending.body)).toContain(member.email);
      await stopServer(restored);
      for (const f of ['dev-token-secret', 'dev-mfa-key-secret', 'dev-data-key-secret']) {
        expect(fs.readFileSync(path.join(target.dataDir, f), 'utf8')).toBe(fs.readFileSync(path.join(source.dataDir, f), 'utf8'));
        expect(fs.statSync(path.join(target.dataDir, f)).mode & 0o077).toBe(0);
      }
      const manifest = manifestOf(backupDir);
      expect((manifest.devDefaultSecrets ?? []).map((s) => [s.variable, s.path, s.devDefault]).sort()).toEqual([
        ['DATA_KEY_SECRET', 'dev-secrets/dev-data-key-secret', true],
        ['MFA_KEY_SECRET', 'dev-secrets/dev-mfa-key-secret', true],
        ['TOKEN_SECRET', 'dev-secrets/dev-token-secret', true],
      ]);

      // Secrets from the environment never go into a backup; restoring it without DATA_KEY_SECRET is refused up front.
      const prodDir = path.join(root, 'env');
      const prod = await runCli({ ...source.env, ...ENV_SECRETS }, ['backup', prodDir]);
      expect(prod.code).toBe(0);
      expect(manifestOf(prodDir).devDefaultSecrets).toEqual([]);
      expect(fs.existsSync(path.join(prodDir, 'dev-secrets'))).toBe(false);
      const text = allText(prodDir);
      for (const secret of Object.values(ENV_SECRETS)) expect(text).not.toContain(secret);
      const refused = await runCli({ ...other.env, ...NO_SECRETS }, ['restore', prodDir]);
      expect(refused.code).toBe(2);
      expect(refused.out).toMatch(/restore refused: .*Set DATA_KEY_SECRET/);
      expect(fs.readdirSync(other.dataDir)).toEqual([]);
      // With a DATA_KEY_SECRET that does not open the store's data keys, the restore says so (exit 1), naming the variable.
      const wrong = await runCli({ ...other.env, ...ENV_SECRETS }, ['restore', prodDir]);
      expect(wrong.code).toBe(1);
      expect(wrong.out).toMatch(/this DATA_KEY_SECRET \(master key \w+\) does not open the members' data keys/);
    } finally {
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await killHard(s);
      await source.cleanup();
      await target.cleanup();
      await other.cleanup();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});
