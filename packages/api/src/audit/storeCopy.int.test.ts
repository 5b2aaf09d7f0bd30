/**
 * Migration between stores: an embedded SQLite store with a generated history and a real paid
 * subscription is copied to a fresh PostgreSQL database with `store copy`; the copy verifies, its
 * read models rebuild with `projections rebuild`, reconcile passes and a server on the copy serves
 * the same data. The real CLI (`pnpm cli audit verify`) exits 0 on the copy and 1 on a tampered log.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { API_CLI_ARGS } from '../../test/apiEntry.js';
import { type FreshStore, freshStore, startTestServer, TEST_DATABASE_URL, type TestServer, testEnv } from '../../test/harness.js';
import { EXAMPLE_SITE_CONFIG } from '../../test/siteConfig.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';
import { auditVerify } from '../cli/auditVerify.js';
import { projectionsRebuild } from '../cli/projectionsRebuild.js';
import { storeCopy } from '../cli/storeCopy.js';
import { openSqlite } from '../db/sqlite.js';
import { openStoreUrl } from '../eventstore/storeUrl.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { signAccessToken } from '../http/auth.js';
import { generateBillingHistory, rawEvents } from './audit.testkit.js';
import { reconcile } from './reconcile.js';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [...API_CLI_ARGS, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', SITE_CONFIG: EXAMPLE_SITE_CONFIG, ...env },
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

const suite = TEST_DATABASE_URL ? describe : describe.skip;
const title = TEST_DATABASE_URL
  ? 'store copy: embedded SQLite → PostgreSQL'
  : 'store copy: embedded SQLite → PostgreSQL skipped: TEST_DATABASE_URL not set (no PostgreSQL to copy to)';

suite(title, () => {
  let source: TestServer;
  let target: FreshStore;
  let copy: TestServer | undefined;
  let member: { id: string; email: string };
  let subscriptionBefore: unknown;
  let statsBefore: unknown;
  let head = 0;
  let checkpointsBefore: unknown[] = [];
  let dataKeysBefore: unknown[] = [];

  beforeAll(async () => {
    source = await startTestServer('sqlite');
    await generateBillingHistory(source.ctx.store, { members: 300, start: new Date(source.clock.now().getTime() - 5 * 86_400_000) });
    const kit = await billingTestKit(source);
    const m = await seedMember(source);
    member = m;
    await kit.submit(m, { transactionHash: HASH(9001) });
    const pending = (await kit.pending()).body.data.payments as { id: string; userId: string }[];
    expect((await kit.verify(pending.find((p) => p.userId === m.id)?.id as string)).status).toBe(200);
    subscriptionBefore = (await kit.subscription(m)).body.data;
    statsBefore = (await kit.api.get('/admin/stats', kit.admin)).body.data;
    head = await source.ctx.store.headPosition();
    await source.subscribers.drain();
    checkpointsBefore = await source.ctx.db.all('SELECT name, position FROM checkpoints ORDER BY name');
    expect(checkpointsBefore).toContainEqual({ name: 'identity-mail', position: head });
    dataKeysBefore = await source.ctx.db.all('SELECT subject_id, wrapped_key, erased_at FROM data_keys ORDER BY subject_id');
    expect(dataKeysBefore.length).toBeGreaterThan(0);
    await source.stop(); // the CLI works with the server stopped
    target = await freshStore('postgres');
  });
  afterAll(async () => {
    await copy?.close();
    await source?.store.cleanup();
  });

  it('copies every event with its position and hash, then verifies the copy', async () => {
    const env = testEnv(target.env);
    expect(
      await storeCopy.run({ env, site: source.site, args: ['--from', source.store.dataDir, '--to', target.env.DATABASE_URL as string] }),
    ).toBe(0);
    expect(await auditVerify.run({ env, site: source.site, args: [] })).toBe(0);
    // A second copy into the now non-empty target is refused.
    expect(
      await storeCopy.run({
        env,
        site: source.site,
        args: ['--from', `sqlite:${source.store.dataDir}/store.sqlite`, '--to', target.env.DATABASE_URL as string],
      }),
    ).toBe(1);
  });

  it('rebuilds the read models on the copy, reconciles, and serves the same data', async () => {
    const env = testEnv(target.env);
    expect(await projectionsRebuild.run({ env, site: source.site, args: [] })).toBe(0);
    copy = await startTestServer('postgres', { store: target, clock: source.clock });
    expect(copy.ctx.db.dialect).toBe('postgres');
    expect(await copy.ctx.store.headPosition()).toBe(head);
    expect((await reconcile(copy.ctx.db, copy.ctx.store)).differences).toEqual([]);
    const token = await signAccessToken(copy.ctx, { id: member.id, role: 'member' });
    const kit = await billingTestKit(copy);
    expect((await kit.api.get('/payments/subscription', token)).body.data).toEqual(subscriptionBefore);
    expect((await kit.api.get('/admin/stats', await adminToken(copy))).body.data).toEqual(statsBefore);
    // The subscribers carry on where the source's stopped: no mail of the copied history goes out again.
    await copy.subscribers.drain();
    expect(await copy.ctx.db.all('SELECT name, position FROM checkpoints ORDER BY name')).toEqual(checkpointsBefore);
    // The members' data keys travel with the log (shredding's copyDataKeys, handed to copyStore).
    expect(await copy.ctx.db.all('SELECT subject_id, wrapped_key, erased_at FROM data_keys ORDER BY subject_id')).toEqual(dataKeysBefore);
    expect(await copy.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox')).toEqual({ n: 0 });
  });

  it('preserves every event id, stream, version, position, time and hash in order', async () => {
    const from = await openStoreUrl(source.store.dataDir);
    const to = await openStoreUrl(target.env.DATABASE_URL as string);
    try {
      const a = from.store.streamAll({ batchSize: 300 })[Symbol.asyncIterator]();
      let n = 0;
      for await (const e of to.store.streamAll({ batchSize: 400 })) {
        const s = (await a.next()).value as RecordedEvent;
        expect(e).toEqual(s);
        n++;
      }
      expect((await a.next()).done).toBe(true);
      expect(n).toBe(head);
    } finally {
      await from.close();
      await to.close();
    }
  });

  it('`pnpm cli audit verify` exits 0 on the copy and 1 naming the position on a tampered source', async () => {
    const ok = await cli(['audit', 'verify'], { DATABASE_URL: target.env.DATABASE_URL as string });
    expect(ok.out).toMatch(new RegExp(`OK: ${head} events verified`));
    expect(ok.code).toBe(0);
    const db = openSqlite(path.join(source.store.dataDir, 'store.sqlite'));
    const row = await rawEvents(db).get(42);
    await rawEvents(db).setData(42, String(row?.data).replace(/"userId":"m/, '"userId":"M'));
    await db.close();
    const broken = await cli(['audit', 'verify'], { DATA_DIR: source.store.dataDir, DATABASE_URL: '' });
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('BROKEN at position 42 [hash]');
  });
});
