/**
 * `pnpm lint`'s import rules catch what they claim to (the configs .dependency-cruiser.cjs and
 * .dependency-cruiser.cycles.cjs, run as `pnpm lint` runs them, by dependency-cruiser's own CLI):
 * each planted defect in a small tree laid out like the repository fails with its rule's name, and
 * the same tree without it passes. A rule that silently matched nothing (an import left out of the
 * graph, as `includeOnly` once left an unresolvable one) would pass its planted defect here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A tree of `files` (path → source) beside the tsconfig files the configs name. */
function tree(files: Record<string, string>): string {
  const dir = tmpDir('members-boundaries-');
  dirs.push(dir);
  const tsconfig = JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', target: 'ES2022' } });
  const all = { 'tsconfig.base.json': tsconfig, 'packages/api/tsconfig.json': tsconfig, ...files };
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** Runs one config over `folders` of the tree; the rules it reports broken (none: it passed). */
async function broken(dir: string, config: string, folders: string[]): Promise<string[]> {
  try {
    await run(DEPCRUISE, [...folders, '--config', path.join(ROOT, config), '--output-type', 'err'], { cwd: dir });
    return [];
  } catch (err) {
    const out = `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''}`;
    const rules = [...out.matchAll(/error ([\w-]+):/g)].map((m) => m[1] as string);
    if (rules.length === 0) throw err;
    return [...new Set(rules)].sort();
  }
}

/** Two areas, billing using identity through its index.ts, as the rules want. */
const CLEAN = {
  'packages/api/src/identity/index.ts': "export { userName } from './users.js';\n",
  'packages/api/src/identity/users.ts': 'export const userName = (id: string) => "user " + id;\n',
  'packages/api/src/billing/index.ts': "export { invoice } from './invoice.js';\n",
  'packages/api/src/billing/invoice.ts':
    "import { userName } from '../identity/index.js';\nexport const invoice = (id: string) => userName(id);\n",
  'packages/api/src/shared/money.ts': 'export const cents = (n: number) => Math.round(n * 100);\n',
};

describe('the API boundaries (.dependency-cruiser.cjs)', () => {
  const check = (files: Record<string, string>) => broken(tree(files), '.dependency-cruiser.cjs', ['packages/api/src']);

  it('pass on a tree that keeps them', async () => {
    expect(await check(CLEAN)).toEqual([]);
  });

  it('fail on an import that resolves to nothing', async () => {
    expect(
      await check({
        ...CLEAN,
        'packages/api/src/shared/money.ts': "import { rate } from './rates.js';\nexport const cents = (n: number) => n * rate;\n",
      }),
    ).toEqual(['not-to-unresolvable']);
  });

  it("fail on an import past another area's index.ts", async () => {
    expect(
      await check({
        ...CLEAN,
        'packages/api/src/billing/invoice.ts':
          "import { userName } from '../identity/users.js';\nexport const invoice = (id: string) => userName(id);\n",
      }),
    ).toEqual(['not-past-index']);
  });

  it('fail on a cycle through the kernel: the routes layer naming the context that names an area using the routes layer', async () => {
    const kernel = {
      ...CLEAN,
      'packages/api/src/kernel/context.ts':
        "import type { Metrics } from '../metrics/index.js';\nexport interface AppContext { metrics: Metrics }\n",
      'packages/api/src/metrics/index.ts':
        "import { refuse } from '../http/envelope.js';\nexport interface Metrics { refuse: typeof refuse }\n",
      'packages/api/src/http/envelope.ts': 'export const refuse = (code: string) => ({ success: false, code });\n',
      'packages/api/src/http/auth.ts': "import { refuse } from './envelope.js';\nexport const guard = () => refuse('auth');\n",
    };
    expect(await check(kernel)).toEqual([]);
    expect(
      await check({
        ...kernel,
        'packages/api/src/http/auth.ts':
          "import type { AppContext } from '../kernel/context.js';\nimport { refuse } from './envelope.js';\nexport const guard = (ctx: AppContext) => ctx.metrics.refuse('auth');\n",
      }),
    ).toEqual(['no-folder-cycle']);
  });

  it('fail on a domain area importing the wiring', async () => {
    expect(
      await check({
        ...CLEAN,
        'packages/api/src/wiring/modules.ts': "import { invoice } from '../billing/index.js';\nexport const modules = [invoice];\n",
        'packages/api/src/billing/invoice.ts':
          "import { userName } from '../identity/index.js';\nimport type { modules } from '../wiring/modules.js';\nexport const invoice = (id: string): typeof modules | string => userName(id);\n",
      }),
    ).toEqual(['no-folder-cycle', 'not-to-wiring']);
  });

  it('fail on two areas that import each other', async () => {
    expect(
      await check({
        ...CLEAN,
        'packages/api/src/identity/index.ts': "export { userName } from './users.js';\nexport { invoice } from '../billing/index.js';\n",
      }),
    ).toEqual(['no-folder-cycle']);
  });
});

describe('no module cycle in any package (.dependency-cruiser.cycles.cjs)', () => {
  const folders = ['packages/ui/src'];
  const A = 'packages/ui/src/format/a.ts';
  const B = 'packages/ui/src/format/b.ts';

  it('passes without a cycle and fails on one, a type-only import included', async () => {
    const acyclic = { [A]: "import { b } from './b.js';\nexport const a = () => b();\n", [B]: 'export const b = () => 1;\n' };
    expect(await broken(tree(acyclic), '.dependency-cruiser.cycles.cjs', folders)).toEqual([]);
    const typeCycle = { ...acyclic, [B]: "import type { a } from './a.js';\nexport const b = (): ReturnType<typeof a> => 1;\n" };
    expect(await broken(tree(typeCycle), '.dependency-cruiser.cycles.cjs', folders)).toEqual(['no-module-cycle']);
  });
});
