/**
 * The Python verifier docs/audit.md hands to auditors, run as an auditor runs it: the code block is
 * read from the doc at test time (so the doc and this test cannot drift apart) and run with
 * `python3` over a store this suite filled through the product's own routes — two members
 * registered and approved, one payment verified, one rejected with a reason full of non-ASCII
 * characters and escapes. On SQLite the script reads `DATA_DIR/store.sqlite`; on PostgreSQL the doc
 * tells the auditor to copy the log into an SQLite file with `pnpm cli store copy` first. The script
 * must agree with the product's head hash, and must report a break at the position of one edited
 * field in the stored log.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../test/childServer.js';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/harness.js';
import { HASH } from '../billing/billing.testkit.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { verifyChain } from './verifyChain.js';

const run = promisify(execFile);
/** Only a hang: a PostgreSQL case starts the CLI (tsx) once, which takes seconds on a loaded two-core machine. */
const HANG = 180_000;
const ROOT = path.resolve(__dirname, '../../../..');

/** The doc's one ```python block, as the auditor copies it. */
function auditorScript(): string {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/audit.md'), 'utf8');
  const blocks = [...doc.matchAll(/^```python\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  expect(blocks, 'docs/audit.md should hold exactly one Python code block, the verifier').toHaveLength(1);
  return blocks[0] as string;
}

/** The store copy command the doc gives for a PostgreSQL store, as written there. */
function postgresCopyCommand(): string {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/audit.md'), 'utf8');
  const command = /`pnpm cli (store copy --from "\$DATABASE_URL" --to sqlite:[^`]+)`/.exec(doc)?.[1];
  expect(command, 'docs/audit.md should say how to run the verifier on a PostgreSQL store').toBeDefined();
  return command as string;
}

/** `python3 verify.py FILE`: exit code and what it printed (stdout, or sys.exit's message on stderr). */
async function python(script: string, sqliteFile: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run('python3', [script, sqliteFile]);
    return { code: 0, out: r.stdout.trim() };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() };
  }
}

const REASON = 'Betrag passt nicht — 0,004 ₿ statt 0,005 ₿ 🙁 "zitiert" \\ zweite\nZeile';

forEachStore("docs/audit.md's Python verifier", (kind) => {
  let server: TestServer;
  let work: string;
  let script: string;
  let head: { events: number; hash: string };
  let verifiedAt = 0;

  beforeAll(async () => {
    work = tmpDir('auditor-');
    script = path.join(work, 'verify_chain.py');
    fs.writeFileSync(script, auditorScript());
    server = await startTestServer(kind);
    const api = apiClient(server.url);
    const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;

    /** Registers, approves and logs in a member; pays an annual intent with `txHash`; returns the payment. */
    async function memberWithPayment(n: number, firstName: string, lastName: string) {
      const email = `auditor-${n}@example.test`;
      const password = 'member-password-123';
      const reg = await api.post('/auth/register', { email, password, firstName, lastName, dateOfBirth: '1990-05-05', agreeToTerms: true });
      expect(reg.status).toBe(201);
      const userId = reg.body.data.user.id as string;
      expect((await api.post(`/admin/users/${userId}/approve`, undefined, admin)).status).toBe(200);
      const token = (await api.post('/auth/login', { email, password })).body.data.token as string;
      const intent = await api.post('/payments/create-subscription-intent', { planType: 'annual' }, token);
      expect(intent.status).toBe(201);
      const submitted = await api.post(
        '/payments/submit-bitcoin-payment',
        { userId, planType: 'annual', btcAmount: intent.body.data.btcAmount, transactionHash: HASH(`a0d1${n}`) },
        token,
      );
      expect(submitted.status).toBe(201);
      return intent.body.data.paymentId as string;
    }

    const paid = await memberWithPayment(1, 'Zoë', 'Ångström 日本');
    expect((await api.post(`/admin/payments/${paid}/verify`, undefined, admin)).status).toBe(200);
    const refused = await memberWithPayment(2, 'Łukasz', 'Żółć 🎬');
    expect((await api.post(`/admin/payments/${refused}/reject`, { reason: REASON }, admin)).status).toBe(200);

    const v = await verifyChain(server.ctx.rawStore); // the log as stored, personal fields sealed (as audit verify reads it)
    if (!v.ok) throw new Error(`the product's own check fails on a fresh store: ${JSON.stringify(v.break)}`);
    head = { events: v.events, hash: v.headHash };
    await server.stop(); // the auditor reads a store nobody writes to
    const db = openDb();
    try {
      verifiedAt = Number((await db.get<{ position: number }>("SELECT position FROM events WHERE type = 'PaymentVerified'"))?.position);
      const rejected = await db.get<{ data: string }>("SELECT data FROM events WHERE type = 'PaymentRejected'");
      // The non-ASCII reason is stored as text, so the script's ensure_ascii=False path is exercised.
      expect(JSON.parse(String(rejected?.data)).reason).toBe(REASON);
    } finally {
      await db.close();
    }
  }, HANG);
  afterAll(async () => {
    await server?.store.cleanup();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  const env = () => server.store.env as Record<string, string>;
  const openDb = (): Db =>
    kind === 'postgres' ? openPostgres(env().DATABASE_URL as string) : openSqlite(path.join(env().DATA_DIR as string, 'store.sqlite'));

  /** The SQLite file the auditor runs the script on, made the way docs/audit.md says for this store. */
  async function auditorsFile(name: string): Promise<string> {
    if (kind === 'sqlite') return path.join(env().DATA_DIR as string, 'store.sqlite');
    const target = path.join(work, name, 'store.sqlite');
    const args = postgresCopyCommand()
      .replace('"$DATABASE_URL"', env().DATABASE_URL as string)
      .replace(/sqlite:\S+/, `sqlite:${target}`)
      .split(' ');
    const copied = await runCli(env(), args);
    // store copy re-checks its copy with the product's verifier: exit 1 on a tampered log, but the copy is written.
    expect(copied.out).toContain('Copied ');
    return target;
  }

  it(
    'reports the chain valid, with the same event count and head hash as the product',
    async () => {
      expect(head.events).toBeGreaterThanOrEqual(10);
      const r = await python(script, await auditorsFile('intact'));
      expect(r).toEqual({ code: 0, out: `OK: ${head.events} events, head ${head.hash}` });
    },
    HANG,
  );

  it(
    'reports a break at the position of one edited field (a verified payment’s amount)',
    async () => {
      const db = openDb();
      try {
        const row = await db.get<{ data: string }>('SELECT data FROM events WHERE position = ?', [verifiedAt]);
        expect(row?.data).toContain('"amountSats":500000');
        await db.run('UPDATE events SET data = ? WHERE position = ?', [
          String(row?.data).replace('"amountSats":500000', '"amountSats":900000'),
          verifiedAt,
        ]);
      } finally {
        await db.close();
      }
      const r = await python(script, await auditorsFile('tampered'));
      expect(r).toEqual({ code: 1, out: `BROKEN at position ${verifiedAt}` });
    },
    HANG,
  );
});
