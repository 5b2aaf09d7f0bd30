/**
 * The honesty rules of scripts/check-test-code.mjs (issue 37): a vitest `retry:`, a `.catch(() => …)`
 * whose value is asserted, and a fixed sleep over 1 s are found; waits for a condition, catches
 * nobody asserts, explained exceptions and look-alikes are not. Samples are the shapes found in this
 * tree (chat.int's fetch upgrade, erasure.int's `{ status: 200 }`) and the ones it keeps.
 */
import { describe, expect, it } from 'vitest';
import { isTestCode, timeAndFailureProblems } from './check-test-code.mjs';

const rules = (source: string) => timeAndFailureProblems(source).map((p) => `${p.line}:${p.rule}`);

describe('retry', () => {
  it("finds vitest's retry option, in a test's options or a config", () => {
    expect(rules("it('flaky', { retry: 3 }, async () => {});")).toEqual(['1:retry']);
    expect(rules('export default defineConfig({ test: {\n  retry: process.env.CI ? 2 : 0,\n} });')).toEqual(['2:retry']);
    expect(rules('describe.configure({ retry: RETRIES });')).toEqual(['1:retry']);
  });

  it('lets a method or function named retry, and comments, through', () => {
    expect(rules("const s = {\n  retry: (at: string) => s.decide(decider, { type: 'RetryTranscode', at }),\n};")).toEqual([]);
    expect(rules('const o = { retry: async () => go(), again: function () {} };')).toEqual([]);
    expect(rules('// The client did retry: the gateway was gone.\nconst attempts = retries(); // retry: once')).toEqual([]);
  });
});

describe('catch around the thing asserted', () => {
  it('finds a swallowed failure inside an assertion', () => {
    const erasure =
      "    expect((await api.get('/admin/audit/payments?format=csv', admin.token).catch(() => ({ status: 200 }))).status).toBe(200);";
    expect(rules(erasure)).toEqual(['1:catch']);
    expect(rules('expect(await load().catch(() => null)).toBeNull();')).toEqual(['1:catch']);
    expect(rules('assert.equal(await check().catch(() => false), true);')).toEqual(['1:catch']);
  });

  it('finds a swallowed failure assigned to a name an assertion reads later in the block', () => {
    const upgrade = [
      "it('refuses', async () => {",
      '  // A refused upgrade (the adapter answers the handshake).',
      "  const refused = await fetch(url + '/api/chat/socket?ticket=x', {",
      "    headers: { connection: 'Upgrade', upgrade: 'websocket' },",
      '  }).catch(() => undefined);',
      '  expect(refused?.status ?? 401).not.toBe(101);',
      '});',
    ].join('\n');
    expect(rules(upgrade)).toEqual(['5:catch']);
    expect(rules('let res;\nres = await get().catch((_e) => ({ ok: true }));\nexpect(res.ok).toBe(true);')).toEqual(['2:catch']);
    expect(rules('const a = await p.catch(() => {});\nexpect([a, 1]).toEqual([undefined, 1]);')).toEqual(['1:catch']);
  });

  it('lets through a catch nobody asserts, one that keeps the error, and an explained one', () => {
    const clean = [
      // A poll: the value read is not what is asserted (deployCompose's health loop).
      'while (!health) {\n  const res = await fetch(url).catch(() => undefined);\n  if (res) health = await res.json();\n}\nexpect(health.status).toBe("ok");',
      // Clean-up and best-effort waits.
      'await db?.close().catch(() => {});',
      "await page.getByText('Loading...').waitFor({ state: 'detached' }).catch(() => {});",
      'if (await waitFor(d, "menu", open).catch(() => false)) return;',
      // The rejection is what is asserted.
      'const err = (await launch({ PORT: "eighty" }).catch((e) => e)) as { code: number };\nexpect(err.code).toBe(1);',
      'await expect(p).rejects.toThrow(/refused/);',
      // Said why.
      '// check-test-code: allow-catch the probe may race the shutdown; only its absence is asserted\nconst r = await probe().catch(() => null);\nexpect(r).toBeNull();',
      'const r = await probe().catch(() => null); // check-test-code: allow-catch the shutdown race\nexpect(r).toBeNull();',
      // A name asserted only in another block is another variable.
      '{\n  const keys = await list().catch(() => []);\n  for (const k of keys) drop(k);\n}\n{\n  const keys = await list();\n  expect(keys).toEqual([]);\n}',
    ];
    expect(clean.map(rules)).toEqual(clean.map(() => []));
  });
});

describe('fixed sleeps', () => {
  it('finds sleeps over 1 s in each spelling', () => {
    const sleeps = [
      'await new Promise((r) => setTimeout(r, 2000));',
      'await new Promise((resolve) => setTimeout(resolve, 5_000));',
      "await new Promise((r) => setTimeout(r, 1500, 'running'));",
      'await setTimeout(3000); // node:timers/promises',
      'await sleep(2 * 1000);',
      'await delay(1001);',
      'await page.waitForTimeout(2000);',
      '  .then(() => sleep(2000))',
    ];
    expect(sleeps.map(rules)).toEqual(sleeps.map(() => ['1:sleep']));
  });

  it('lets polls, short pauses, hang bounds and named conditions through', () => {
    const clean = [
      'while (!done()) await new Promise((r) => setTimeout(r, 50));',
      'await new Promise((r) => setTimeout(r, 1000));',
      'await page.waitForTimeout(250);',
      // A bound that rejects on a hang is not a sleep.
      "const hang = setTimeout(() => reject(new Error('never pushed')), 30_000);",
      'await page.waitForFunction(ready, null, { timeout: 15_000 });',
      'await sleep(ms);',
      '// fixed wait: the fault under test is the key answering 5 s late\nawait new Promise((r) => setTimeout(r, 5000));',
      'await new Promise((r) => setTimeout(r, 5000)); // fixed wait: the outage lasts 5 s',
      '// await new Promise((r) => setTimeout(r, 5000));',
    ];
    expect(clean.map(rules)).toEqual(clean.map(() => []));
  });

  it('needs the reason on the line or the one before, not further up', () => {
    expect(rules('// fixed wait: the outage lasts 2 s\nconst x = 1;\nawait sleep(2000);')).toEqual(['3:sleep']);
  });
});

it('applies to test files, test helpers and the test and e2e folders, not to production code', () => {
  const tests = [
    'packages/api/src/chat/chat.int.test.ts',
    'packages/ui/src/api/client.unit.test.ts',
    'packages/web/e2e/member-journey.e2e.test.ts',
    'packages/admin-desktop/src/App.unit.test.tsx',
    'packages/api/src/deploy.testkit.ts',
    'packages/api/test/writers.ts',
    'packages/web/e2e/engines/webkit.ts',
  ];
  expect(tests.filter((f) => !isTestCode(f))).toEqual([]);
  const production = ['packages/api/src/chat/live.ts', 'packages/web/src/player/usePlayer.ts', 'packages/api/src/shared/retry.ts'];
  expect(production.filter(isTestCode)).toEqual([]);
});
