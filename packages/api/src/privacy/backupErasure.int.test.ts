/**
 * Backups and crypto-shredding: a backup made before an erasure holds the member's data key, so
 * restoring it brings the member back; `restore --erasures FILE` (the newest `erasures list` kept
 * outside the backups) erases them again, after which their personal data is gone from the restored
 * store's bytes too. And `keys rotate` re-wraps every data key under a new DATA_KEY_SECRET: the old
 * secret alone no longer reads them, the new one does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  apiClient,
  type FreshStore,
  forEachStore,
  freshStore,
  startTestServer,
  TEST_DATA_KEY_SECRET,
  type TestServer,
  testEnv,
  tmpDir,
} from '../../test/harness.js';
import { storeBytes } from '../../test/storeBytes.js';
import { backupSite } from '../backup/siteBackup.js';
import { restore } from '../cli/backupRestore.js';
import { erasuresList, keysRotate } from '../cli/privacy.js';
import { adminLogin, registerMember } from '../identity/identity.testkit.js';
import { closeContext, createContext } from '../kernel/context.js';
import { DataKeyError } from '../shredding/dataKeys.js';
import { allProjections } from '../wiring/modules.js';

/** Runs a CLI command in-process with stdout captured. */
async function cli(command: { run: typeof restore.run }, env: ReturnType<typeof testEnv>, site: TestServer['site'], args: string[]) {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(' '));
  try {
    return { code: await command.run({ env, site, args }), out: lines.join('\n') };
  } finally {
    console.log = log;
  }
}

forEachStore('backups and erasure', (kind) => {
  let server: TestServer;
  let restored: FreshStore;

  beforeAll(async () => {
    server = await startTestServer(kind);
    restored = await freshStore(kind);
  });
  const scratch = tmpDir('members-privacy-backup-');
  afterAll(async () => {
    await server?.close();
    await restored?.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('re-erases after restoring a backup made before the erasure; keys rotate to a new master secret', async () => {
    const api = apiClient(server.url);
    const gone = await registerMember(api, { firstName: 'Restorina', lastName: 'Backupova' });
    const kept = await registerMember(api, { firstName: 'Keepsake' });
    const backupDir = path.join(scratch, 'backup');
    await backupSite({ dataDir: server.store.dataDir, databaseUrl: server.store.env.DATABASE_URL }, backupDir);

    const admin = await adminLogin(api);
    expect((await api.post(`/admin/users/${gone.id}/erase`, { reason: 'request #7' }, admin.token)).status).toBe(200);
    const list = await cli(erasuresList, testEnv(server.store.env), server.site, []);
    expect(list.out).toContain(gone.id);
    const listFile = path.join(scratch, 'erasures.tsv');
    fs.writeFileSync(listFile, `${list.out}\n`);

    // The backup holds the key: restored without the list, the member reads again (the README says so).
    const env = testEnv(restored.env);
    const plain = await cli(restore, env, server.site, [backupDir]);
    expect(plain.code).toBe(0);
    expect(storeBytes(restored)).toContain(gone.email);

    // With the list, they are erased again and their data leaves the restored store's bytes.
    await restored.cleanup();
    restored = await freshStore(kind);
    const env2 = testEnv(restored.env);
    const again = await cli(restore, env2, server.site, [backupDir, '--erasures', listFile]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('Erased again: 1');
    const bytes = storeBytes(restored);
    for (const needle of [gone.email, 'Restorina', 'Backupova'])
      expect({ needle, found: bytes.includes(needle) }).toEqual({ needle, found: false });
    expect(bytes).toContain(kept.email);

    // Rotation: re-wrap with a new secret; the old one alone no longer reads the sealed fields.
    const NEW = 'rotated-data-key-secret-rotated-data-key-secret-0123';
    const rotated = await cli(
      keysRotate,
      testEnv({ ...restored.env, DATA_KEY_SECRET: NEW, DATA_KEY_SECRET_PREVIOUS: TEST_DATA_KEY_SECRET }),
      server.site,
      [],
    );
    expect(rotated.code).toBe(0);
    expect(rotated.out).toMatch(/Re-wrapped [1-9]\d* data keys/);
    const withNew = await createContext(testEnv({ ...restored.env, DATA_KEY_SECRET: NEW }), server.site, allProjections());
    try {
      expect((await withNew.store.readStream(`user-${kept.id}`))[0]?.data).toMatchObject({ email: kept.email, firstName: 'Keepsake' });
      expect((await withNew.store.readStream(`user-${gone.id}`))[0]?.data).toMatchObject({ firstName: 'erased' });
    } finally {
      await closeContext(withNew);
    }
    const withOld = await createContext(env2, server.site, allProjections());
    try {
      await expect(withOld.store.readStream(`user-${kept.id}`)).rejects.toBeInstanceOf(DataKeyError);
    } finally {
      await closeContext(withOld);
    }
  });
});
