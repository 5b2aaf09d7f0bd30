/**
 * Login cost: argon2id verifications per second on one core at the configured cost (the CPU a
 * login spends; HTTP and the session write are small beside it), and whether that cost meets OWASP's
 * minimum for argon2id (Password Storage Cheat Sheet: m=19 MiB t=2, or m=12 MiB t=3, m=9 MiB t=4,
 * m=7 MiB t=5, m=46 MiB t=1; p=1 each). No reference: the figure tells an operator how many logins a
 * second one core absorbs.
 *
 *   npx tsx bench/login.ts [--quick]
 */
import { ARGON2_OPTIONS, hashPassword, verifyPassword } from '../packages/api/src/identity/passwords.js';
// @ts-expect-error plain .mjs helper without types
import { QUICK, report } from './lib/report.mjs';

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
