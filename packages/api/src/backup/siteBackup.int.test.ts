/**
 * Backup and restore through the real CLI while the real server runs under 20 writers: the backup
 * (SQLite online backup API, or pg_dump -Fc in an exported snapshot for PostgreSQL) is restored into
 * an empty DATA_DIR (and a new, empty database), a server starts on it, and the restored site equals
 * the source at the backup's head position: same hash there, the same users, approvals, payments,
 * verifications and videos as the source's events up to that position, media files byte-equal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer, runCli, stopServer } from '../../test/childServer.js';
import { forEachStore, freshStore, tmpDir } from '../../test/harness.js';
import { ackedCount, loginAdmin, newAcked, startLoad } from '../../test/writers.js';
import { envStoreUrl } from '../cli/auditStore.js';
import { parseEnv } from '../config/env.js';
import { openStoreUrl } from '../eventstore/storeUrl.js';
import { makeMp4 } from '../media/media.testkit.js';
import type { BackupManifest } from './siteBackup.js';

const clipDir = tmpDir('members-backup-clip-');
let clip: string;

beforeAll(async () => {
  clip = await makeMp4(clipDir, 1);
});
afterAll(() => fs.rmSync(clipDir, { recursive: true, force: true }));

interface SiteState {
  users: string[];
  approved: string[];
  payments: string[];
  verified: string[];
  videos: string[];
}

const sorted = (s: Iterable<string>) => [...s].sort();

/** What the source's events up to `head` say the site holds. */
async function stateFromEvents(storeEnv: Partial<Record<string, string>>, head: number): Promise<{ state: SiteState; hashAtHead: string }> {
  const opened = await openStoreUrl(envStoreUrl(parseEnv(storeEnv as NodeJS.ProcessEnv)), { create: false });
  const s = {
    users: new Set<string>(),
    approved: new Set<string>(),
    payments: new Set<string>(),
    verified: new Set<string>(),
    videos: new Set<string>(),
  };
  let hashAtHead = '';
  try {
    for await (const e of opened.store.streamAll({ batchSize: 1000 })) {
      if (e.position > head) break;
      if (e.position === head) hashAtHead = e.hash;
      const d = e.data as { userId?: string; paymentId?: string; videoId?: string };
      if (e.type === 'UserRegistered') s.users.add(d.userId as string);
      if (e.type === 'UserApproved') s.approved.add(d.userId as string);
      if (e.type === 'PaymentRequested' || e.type === 'PaymentSubmitted') s.payments.add(d.paymentId as string);
      if (e.type === 'PaymentVerified') s.verified.add(d.paymentId as string);
      if (e.type === 'VideoUploaded') s.videos.add(d.videoId as string);
      if (e.type === 'VideoDeleted') s.videos.delete(d.videoId as string);
    }
  } finally {
    await opened.close();
  }
  return {
    state: {
      users: sorted(s.users),
      approved: sorted(s.approved),
      payments: sorted(s.payments),
      verified: sorted(s.verified),
      videos: sorted(s.videos),
    },
    hashAtHead,
  };
}

/** What the restored site's read models hold. */
async function stateFromReadModels(storeEnv: Partial<Record<string, string>>): Promise<SiteState> {
  const opened = await openStoreUrl(envStoreUrl(parseEnv(storeEnv as NodeJS.ProcessEnv)), { create: false });
  const db = opened.db;
  if (!db) throw new Error('not a SQL store');
  try {
    const ids = async (sql: string) => sorted((await db.all<{ id: string }>(sql)).map((r) => r.id));
    return {
      users: await ids('SELECT id FROM users'),
      approved: await ids(`SELECT id FROM users WHERE status = 'approved'`),
      payments: await ids('SELECT id FROM billing_payments'),
      verified: await ids(`SELECT id FROM billing_payments WHERE status = 'verified'`),
      videos: await ids('SELECT id FROM videos'),
    };
  } finally {
    await opened.close();
  }
}

forEachStore('backup and restore under load', (kind) => {
  it('backs up a live site and restores it into an empty DATA_DIR as the same site', async () => {
    const source = await freshStore(kind);
    const target = await freshStore(kind);
    const backupDir = path.join(tmpDir('members-backup-'), 'backup');
    let server: ChildServer | undefined;
    let restored: ChildServer | undefined;
    try {
      server = await launchServer(source.env);
      const admin = await loginAdmin(server.url);
      const plans = (await (await fetch(`${server.url}/api/subscriptions/plans`)).json()) as {
        data: { plans: { planType: string; btcAmount: string }[] };
      };
      const monthlyBtc = plans.data.plans.find((p) => p.planType === 'monthly')?.btcAmount as string;
      const acked = newAcked();
      const load = startLoad({ url: server.url, adminToken: admin, clip, acked, monthlyBtc });
      const until = Date.now() + 30_000;
      while ((acked.videos.size < 2 || acked.verified.size < 2 || ackedCount(acked) < 40) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));

      // The backup, while the writers keep writing.
      const atStart = ackedCount(acked);
      const started = performance.now();
      const backup = await runCli(source.env, ['backup', backupDir]);
      const backupMs = Math.round(performance.now() - started);
      expect(backup.out).toMatch(/Backed up/);
      expect(backup.code).toBe(0);
      const writtenDuringBackup = ackedCount(acked) - atStart;
      await load.stop();
      expect(load.problems.filter((p) => / → 5\d\d /.test(p))).toEqual([]);
      await stopServer(server);

      const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8')) as BackupManifest;
      expect(manifest.store).toBe(kind);
      expect(manifest.missingMedia).toEqual([]);
      const { state: expected, hashAtHead } = await stateFromEvents(source.env, manifest.head.position);
      expect(manifest.head.hash).toBe(hashAtHead);
      expect(expected.videos.length).toBeGreaterThan(0);

      // Restore refuses a data directory that is not empty.
      const refused = await runCli(source.env, ['restore', backupDir]);
      expect(refused.code).toBe(1);
      expect(refused.out).toMatch(/not empty/);

      const restore = await runCli(target.env, ['restore', backupDir]);
      expect(restore.out).toMatch(/Restored/);
      expect(restore.code).toBe(0);

      // `audit verify` on the restored store ends at the manifest's head with its hash.
      const verify = await runCli(target.env, ['audit', 'verify']);
      expect(verify.code).toBe(0);
      expect(verify.out).toContain(`head position ${manifest.head.position}, head hash ${manifest.head.hash}`);
      expect(await stateFromReadModels(target.env)).toEqual(expected);

      // Media: byte-equal to the source's files.
      for (const f of manifest.media) {
        const a = fs.readFileSync(path.join(source.dataDir, 'media', f.path));
        const b = fs.readFileSync(path.join(target.dataDir, 'media', f.path));
        expect(b.equals(a)).toBe(true);
      }
      expect(
        manifest.media
          .map((f) => f.path.split('/')[1])
          .filter((v, i, a) => a.indexOf(v) === i)
          .sort(),
      ).toEqual(expected.videos);

      // The restored site serves: the admin logs in, the catalog lists, a video streams.
      restored = await launchServer(target.env);
      const token = await loginAdmin(restored.url);
      expect((await fetch(`${restored.url}/api/videos`)).status).toBe(200);
      const approvedUsers = await fetch(`${restored.url}/api/admin/stats`, { headers: { authorization: `Bearer ${token}` } });
      expect(approvedUsers.status).toBe(200);
      await stopServer(restored);

      const bytes = manifest.database.size + manifest.media.reduce((s, f) => s + f.size, 0);
      console.log(
        `[${kind}] backup of ${manifest.head.position} events, ${expected.users.length} users, ${expected.payments.length} payments, ` +
          `${manifest.media.length} media files: ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${manifest.durationMs} ms ` +
          `(CLI ${backupMs} ms, ${writtenDuringBackup} writes acknowledged during it); restored and verified`,
      );
    } finally {
      for (const s of [server, restored]) if (s && s.child.exitCode === null && s.child.signalCode === null) await killHard(s);
      await source.cleanup();
      await target.cleanup();
      fs.rmSync(path.dirname(backupDir), { recursive: true, force: true });
    }
  }, 180_000);
});
