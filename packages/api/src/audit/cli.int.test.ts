/**
 * The audit commands as an operator runs them (`pnpm cli …` in a child process, server stopped),
 * against SQLite and PostgreSQL: payments as CSV and JSON, replay to a position, reconcile passing
 * and then failing on an altered read-model row, and a signed checkpoint that later exposes a
 * truncated log.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_CLI_ARGS } from '../../test/apiEntry.js';
import { forEachStore, startTestServer, TEST_DATA_KEY_SECRET, type TestServer, testEnv, tmpDir } from '../../test/harness.js';
import { EXAMPLE_SITE_CONFIG } from '../../test/siteConfig.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';
import { auditPayments } from '../cli/auditPayments.js';
import { auditReplay } from '../cli/auditReplay.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { generateBillingHistory, rawEvents } from './audit.testkit.js';
import { generateSigningKeys } from './checkpoint.js';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');

/** Each test runs the CLI (tsx) three to six times: on a loaded two-core machine one start can take 10 s. */
const CLI_TEST_TIMEOUT = 180_000;

forEachStore('pnpm cli audit …', (kind) => {
  let server: TestServer;
  let head = 0;
  let env: Record<string, string>;

  async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    try {
      const r = await run(process.execPath, [...API_CLI_ARGS, ...args], {
        cwd: ROOT,
        env: {
          ...process.env,
          LOG_LEVEL: 'silent',
          DATABASE_URL: '',
          DATA_KEY_SECRET: TEST_DATA_KEY_SECRET,
          SITE_CONFIG: EXAMPLE_SITE_CONFIG,
          ...env,
        },
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  }
  const openDb = (): Db =>
    kind === 'postgres' ? openPostgres(env.DATABASE_URL as string) : openSqlite(path.join(env.DATA_DIR as string, 'store.sqlite'));

  beforeAll(async () => {
    server = await startTestServer(kind);
    await generateBillingHistory(server.ctx.store, { members: 100, start: new Date(server.clock.now().getTime() - 86_400_000) });
    const kit = await billingTestKit(server);
    const m = await seedMember(server);
    await kit.submit(m, { transactionHash: HASH(4242) });
    head = await server.ctx.store.headPosition();
    env = server.store.env as Record<string, string>;
    await server.stop();
  });
  afterAll(async () => server?.store.cleanup());

  it(
    'audit payments --format csv|json, with --from/--to',
    async () => {
      const csv = await cli('audit', 'payments', '--format', 'csv');
      expect(csv.code).toBe(0);
      const lines = csv.out.trim().split('\r\n');
      expect(lines[0]?.startsWith('position,time,action,paymentId,userId,memberEmail')).toBe(true);
      expect(lines.length - 1).toBe(100 * 2 + 80 + 20 + 1);
      expect(lines.at(-1)).toContain(`,submitted,`);
      expect(lines.at(-1)).toContain(HASH(4242));
      const json = await cli('audit', 'payments', '--format=json', '--from', '2000-01-01', '--to', '2000-12-31');
      expect(JSON.parse(json.out)).toEqual({ success: true, data: [] });
      const site = server.site;
      expect(await auditPayments.run({ env: testEnv(env), site, args: ['--from', 'soon'] })).toBe(2);
      expect(await auditPayments.run({ env: testEnv(env), site, args: ['--format', 'xml'] })).toBe(2);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'audit replay --to POSITION prints the subscriptions as they were',
    async () => {
      const r = await cli('audit', 'replay', '--to', '20', '--format', 'ndjson');
      expect(r.code).toBe(0);
      expect(r.err).toContain('up to position 20');
      const rows = r.out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.lastPosition <= 20)).toBe(true);
      expect(await auditReplay.run({ env: testEnv(env), site: server.site, args: [] })).toBe(2);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'audit replay --to DAY includes the whole of that day, as audit payments --to DAY does',
    async () => {
      const ndjson = (out: string) =>
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { position: number; time: string; action: string; txHash: string | null });
      const all = ndjson((await cli('audit', 'payments', '--format', 'ndjson')).out);
      // The submission made through the server above: recorded today (UTC) by the server's clock.
      const submitted = all.find((r) => r.action === 'submitted' && r.txHash === HASH(4242));
      if (!submitted) throw new Error('the submission made through the server is not in audit payments');
      const today = submitted.time.slice(0, 10);
      const dayBefore = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const replayedToday = await cli('audit', 'replay', '--to', today, '--format', 'ndjson');
      expect(replayedToday.code).toBe(0);
      expect(replayedToday.err).toContain(`up to position ${head}`);
      const paymentsToday = ndjson((await cli('audit', 'payments', '--to', today, '--format', 'ndjson')).out);
      expect(paymentsToday.map((r) => r.position)).toContain(submitted.position);
      const replayedBefore = await cli('audit', 'replay', '--to', dayBefore, '--format', 'ndjson');
      expect(Number(/up to position (\d+)/.exec(replayedBefore.err)?.[1])).toBeLessThan(submitted.position);
      const paymentsBefore = ndjson((await cli('audit', 'payments', '--to', dayBefore, '--format', 'ndjson')).out);
      expect(paymentsBefore.map((r) => r.position)).not.toContain(submitted.position);
      expect((await cli('audit', 'replay', '--to', '2026-02-31')).code).toBe(2);
      expect((await cli('audit', 'payments', '--to', '2026-02-31')).code).toBe(2);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'audit reconcile exits 0 on the untouched store and 1 when a read model row is altered',
    async () => {
      const ok = await cli('audit', 'reconcile');
      expect(ok.out).toContain('OK: read models match the events');
      expect(ok.code).toBe(0);
      const db = openDb();
      await db.run(`UPDATE billing_subscriptions SET current_period_end = '2099-01-01T00:00:00.000Z' WHERE user_id = 'm00003'`);
      const bad = await cli('audit', 'reconcile');
      await db.close();
      expect(bad.code).toBe(1);
      expect(bad.out).toContain('DIFFERENCE [subscription-row] subscription of member member3@example.test: current_period_end differs');
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'audit checkpoint signs the head; audit verify --checkpoint later exposes a truncated log',
    async () => {
      const keys = generateSigningKeys();
      const dir = tmpDir('audit-cp-');
      const cpFile = path.join(dir, 'checkpoint.json');
      const pubFile = path.join(dir, 'public.pem');
      fs.writeFileSync(pubFile, keys.publicKey);
      env = { ...env, AUDIT_SIGNING_KEY: keys.privateKey };
      const signed = await cli('audit', 'checkpoint', '--out', cpFile);
      expect(signed.code).toBe(0);
      expect(JSON.parse(fs.readFileSync(cpFile, 'utf8'))).toMatchObject({ position: head, algorithm: 'Ed25519' });
      expect((await cli('audit', 'verify', '--checkpoint', cpFile, '--public-key', pubFile)).code).toBe(0);
      const db = openDb();
      await rawEvents(db).remove(head);
      await db.close();
      expect((await cli('audit', 'verify')).code).toBe(0); // the shorter chain is still a valid chain…
      const caught = await cli('audit', 'verify', '--checkpoint', cpFile, '--public-key', pubFile);
      expect(caught.code).toBe(1); // …but not the state the auditor holds a signature for
      expect(caught.out).toContain(`BROKEN at position ${head} [checkpoint]`);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    CLI_TEST_TIMEOUT,
  );
});
