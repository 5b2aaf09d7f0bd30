/**
 * Login cost:
 * 1. argon2id verifications per second on one core at the configured cost (the CPU a login spends;
 *    HTTP and the session write are small beside it), and whether that cost meets OWASP's minimum for
 *    argon2id (Password Storage Cheat Sheet: m=19 MiB t=2, or m=12 MiB t=3, m=9 MiB t=4, m=7 MiB t=5,
 *    m=46 MiB t=1; p=1 each). No reference: the figure tells an operator how many logins a second one
 *    core absorbs.
 * 2. Logins per second (the login use case: throttle check, user lookup, password, session) with the
 *    failed-login throttling (identity/limits.ts: per account and client address, per account) against
 *    the same use case with no throttling, in alternating rounds, on the embedded store (counters in
 *    memory) and on PostgreSQL (counters in a shared table: two reads and two deletes per login).
 *
 *   npx tsx bench/login.ts [--quick]
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from '../packages/api/src/config/env.js';
import { loadSiteConfig } from '../packages/api/src/config/site.js';
import { register } from '../packages/api/src/identity/accounts.service.js';
import { type AuthLimits, createAuthLimits } from '../packages/api/src/identity/limits.js';
import { ARGON2_OPTIONS, hashPassword, verifyPassword } from '../packages/api/src/identity/passwords.js';
import { logIn } from '../packages/api/src/identity/session.service.js';
import { modules } from '../packages/api/src/wiring/modules.js';
import { startServer } from '../packages/api/src/wiring/server.js';
import { freshDatabase } from './lib/freshDatabase.js';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';

const fromApi = createRequire(new URL('../packages/api/package.json', import.meta.url));
const { default: pino } = (await import(fromApi.resolve('pino'))) as typeof import('pino');

/** OWASP's equivalent minimum settings: memory in KiB and iterations, parallelism 1. */
const OWASP_MINIMA = [
  { m: 47104, t: 1 },
  { m: 19456, t: 2 },
  { m: 12288, t: 3 },
  { m: 9216, t: 4 },
  { m: 7168, t: 5 },
];
const { memoryCost: m, timeCost: t, parallelism: p } = ARGON2_OPTIONS;
const meets = p >= 1 && OWASP_MINIMA.some((min) => m >= min.m && t >= min.t);

const hash = await hashPassword('a member password 123');
await verifyPassword(hash, 'a member password 123');
const n = QUICK ? 10 : 50;
const started = performance.now();
// One after another: one verification at a time is one core's work.
for (let i = 0; i < n; i++) if (!(await verifyPassword(hash, 'a member password 123'))) throw new Error('verify failed');
const perSecond = (n / (performance.now() - started)) * 1000;
report({
  figure: `Login: argon2id verifications per core (m=${(m / 1024).toFixed(0)} MiB, t=${t}, p=${p}; OWASP minimum ${meets ? 'met' : 'NOT met'})`,
  ours: perSecond,
  unit: 'logins/s',
  target: 'report; cost ≥ OWASP minimum',
  pass: meets,
});

// 2. Throughput of the login use case with and without the throttling, same server, alternating rounds.
const ROUNDS = SMOKE ? 1 : QUICK ? 5 : 9;
const PER_ROUND = SMOKE ? 8 : QUICK ? 24 : 120;
const CONCURRENCY = 8;

async function loginRates(kind: 'SQLite' | 'PostgreSQL', databaseUrl?: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-login-'));
  const env = parseEnv({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TOKEN_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    MFA_KEY_SECRET: 'bench-mfa-key-bench-mfa-key-bench-mfa-key-0123',
    DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
    TRANSCODE_CONCURRENCY: '0',
    ADMIN_EMAIL: 'bench-admin@example.test',
    ADMIN_PASSWORD: 'bench-admin-password-123',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  } as NodeJS.ProcessEnv);
  const server = await startServer(env, loadSiteConfig().config, modules, { logger: pino({ level: 'silent' }) });
  try {
    const ctx = server.ctx;
    const credentials = { email: 'bench-login@example.test', password: 'a member password 123' };
    const input = { ...credentials, firstName: 'Bench', lastName: 'Login', dateOfBirth: '1990-01-01', agreeToTerms: true };
    const registered = await register(ctx, input, { geo: null, caller: { actorId: null } });
    if (!registered.ok) throw new Error(registered.error.message);
    const throttled = createAuthLimits(ctx);
    const unthrottled: AuthLimits = {
      ...throttled,
      failedLogins: { hit: async () => undefined, reset: async () => undefined, wait: async () => undefined },
    };
    const round = async (limits: AuthLimits) => {
      let next = 0;
      const started = performance.now();
      const worker = async () => {
        while (next++ < PER_ROUND) {
          const r = await logIn(ctx, limits, credentials, undefined, '198.51.100.7');
          if (!r.ok) throw new Error(`login failed: ${r.error.message}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return (PER_ROUND / (performance.now() - started)) * 1000;
    };
    await round(throttled);
    const on: number[] = [];
    const off: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which goes first, so a drift in the machine's load falls on both.
      let x: number;
      let y: number;
      if (r % 2) {
        y = await round(unthrottled);
        x = await round(throttled);
      } else {
        x = await round(throttled);
        y = await round(unthrottled);
      }
      on.push(x);
      off.push(y);
      ratios.push(x / y);
    }
    const ours = spread(on);
    const reference = spread(off);
    const ratio = spread(ratios);
    report({
      figure: `Login throughput with the failed-login throttling, ${kind} (${CONCURRENCY} at once; password, throttle, session)`,
      ours: ours.median,
      oursRange: ours.range,
      reference: reference.median,
      referenceRange: reference.range,
      referenceLabel: 'the same logins without throttling',
      ratio: ratio.median,
      ratioRange: ratio.range,
      unit: 'logins/s',
      target: '≥ 0.9×',
      pass: ratio.median >= 0.9,
      aboveReference: 'the two differ by a few counter reads beside an argon2 verification; noise can put either ahead',
    });
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await loginRates('SQLite');
let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
try {
  db = await freshDatabase('login');
  await loginRates('PostgreSQL', db.url);
} catch (err) {
  console.log(`postgres: not measured (${(err as Error).message.split('\n')[0]})`);
  process.exitCode = 1;
} finally {
  await db?.drop();
}
