import { describe, expect, it } from 'vitest';
import { checkDocs } from './checkDocs.mjs';
import { renderBench, replaceBlock } from './figures.mjs';
import { anchorsOf, linksOf, slugify } from './markdown.mjs';

const index = '# Docs\n\n- [Config](config.md)\n- [Ops](ops.md)\n';
const config = '# Configuration\n\n## Site config file\n\n`PORT` and `DATA_DIR`.\n';
const ops = '# Operations\n\n`pnpm cli migrate`, `audit verify`.\n\nSee [the file](config.md#site-config-file).\n';

function tree(overrides: Record<string, string> = {}) {
  return new Map(
    Object.entries({
      'README.md': '# Site\n\n[Docs](docs/README.md) · ![shot](docs/images/shot.png)\n',
      'docs/README.md': index,
      'docs/config.md': config,
      'docs/ops.md': ops,
      ...overrides,
    }),
  );
}

const input = (pages: Map<string, string>, more: Partial<Parameters<typeof checkDocs>[0]> = {}) => ({
  pages,
  fileExists: (rel: string) => rel === 'docs/images/shot.png',
  envNames: ['PORT', 'DATA_DIR'],
  commandNames: ['migrate', 'audit verify'],
  ...more,
});

describe('docs check', () => {
  it('passes a sound tree', () => {
    expect(checkDocs(input(tree()))).toEqual([]);
  });

  it('catches a link to a missing file and to a missing heading', () => {
    const problems = checkDocs(input(tree({ 'docs/ops.md': `${ops}\n[gone](gone.md) and [here](config.md#no-such-heading)\n` })));
    expect(problems).toEqual([
      'docs/ops.md:7: link gone.md: docs/gone.md does not exist',
      'docs/ops.md:7: link config.md#no-such-heading: no heading #no-such-heading in docs/config.md',
    ]);
  });

  it('catches a missing image from the README', () => {
    const problems = checkDocs(input(tree(), { fileExists: () => false }));
    expect(problems).toEqual(['README.md:3: link docs/images/shot.png: docs/images/shot.png does not exist']);
  });

  it('ignores links inside code', () => {
    expect(checkDocs(input(tree({ 'docs/ops.md': `${ops}\n\`[a](gone.md)\`\n\n\`\`\`\n[b](gone.md)\n\`\`\`\n` })))).toEqual([]);
  });

  it('catches an environment variable and a command the docs never mention', () => {
    const problems = checkDocs(
      input(tree(), { envNames: ['PORT', 'DATA_DIR', 'MEDIA_STORE', 'PORTS'], commandNames: ['migrate', 'audit verify', 'store copy'] }),
    );
    expect(problems).toEqual([
      'environment variable MEDIA_STORE (packages/api/src/config/env.ts) appears nowhere in docs/',
      'environment variable PORTS (packages/api/src/config/env.ts) appears nowhere in docs/',
      'CLI command `pnpm cli store copy` (packages/api/src/cli/commands.ts) appears nowhere in docs/',
    ]);
  });

  it('catches a variable without a meaning in env.docs.ts, and a meaning for a variable gone', () => {
    expect(checkDocs(input(tree(), { envDocNames: ['PORT', 'OLD_VAR'] }))).toEqual([
      'environment variable DATA_DIR has no meaning in packages/api/src/config/env.docs.ts',
      'packages/api/src/config/env.docs.ts describes OLD_VAR, which the environment schema no longer has',
    ]);
  });

  it('catches a page the index does not link', () => {
    expect(checkDocs(input(tree({ 'docs/orphan.md': '# Orphan\n' })))).toEqual(['docs/README.md does not link docs/orphan.md']);
  });

  it('catches stale generated figures', () => {
    const figures = [{ file: 'docs/config.md', before: 'a', after: 'b' }];
    expect(checkDocs(input(tree(), { figures }))).toEqual([
      'docs/config.md: generated figures are stale; run node scripts/docs-figures.mjs',
    ]);
  });
});

describe('anchors as GitHub makes them', () => {
  it('drops punctuation and code marks, numbers repeats', () => {
    expect(slugify('Account settings (`/account`)')).toBe('account-settings-account');
    expect(slugify('Audit commands (`pnpm cli …`, server may be stopped)')).toBe('audit-commands-pnpm-cli--server-may-be-stopped');
    expect([...anchorsOf('# A\n## Tests\n```\n# not a heading\n```\n## Tests\n')]).toEqual(['a', 'tests', 'tests-1']);
    expect(linksOf('[a](x.md) `[b](y.md)` ![c](z.png)').map((l) => l.target)).toEqual(['x.md', 'z.png']);
  });
});

describe('generated figures', () => {
  it('replace only what lies between their markers, inline or as a block', () => {
    const page = 'a <!-- generated:n -->56 paths<!-- /generated:n --> b\n\n<!-- generated:t -->\nold\n<!-- /generated:t -->\nend\n';
    const once = replaceBlock(replaceBlock(page, 'n', '70 paths'), 't', '| x |');
    expect(once).toBe('a <!-- generated:n -->70 paths<!-- /generated:n --> b\n\n<!-- generated:t -->\n| x |\n<!-- /generated:t -->\nend\n');
    expect(replaceBlock(replaceBlock(once, 'n', '70 paths'), 't', '| x |')).toBe(once);
    expect(() => replaceBlock(page, 'missing', 'x')).toThrow(/not found/);
  });

  it('take the newest full bench run, not a quick one after it', () => {
    const results = [
      '# Benchmark results',
      '## 2026-01-01 10:00 UTC — full run',
      'Machine: old.',
      '| figure | ours |',
      '| a | 1 |',
      '## 2026-01-02 10:00 UTC — full run',
      'Machine: 2 cores.',
      '| figure | ours |',
      '| a | 2 |',
      '## 2026-01-03 10:00 UTC — quick run',
      '| figure | ours |',
      '| a | 3 |',
    ].join('\n');
    const out = renderBench(results);
    expect(out).toContain('2026-01-02 10:00 UTC — full run. Machine: 2 cores.');
    expect(out).toContain('| a | 2 |');
    expect(out).not.toContain('| a | 3 |');
  });

  it('keep the newest run of every bench, and add newer runs of some benches under their own heading', () => {
    const results = [
      '# Benchmark results',
      '## 2026-01-02 10:00 UTC — full run',
      'Machine: 2 cores.',
      '| figure | ours |',
      '| a | 2 |',
      '## 2026-01-03 10:00 UTC — full run of bench/media-s3.mjs',
      'Machine: loaded.',
      '| figure | ours |',
      '| s3 | 9 |',
      '## 2026-01-04 10:00 UTC — quick run of bench/media-s3.mjs',
      '| figure | ours |',
      '| s3 | 1 |',
    ].join('\n');
    const out = renderBench(results);
    expect(out).toContain('2026-01-02 10:00 UTC — full run. Machine: 2 cores.');
    expect(out).toContain('| a | 2 |');
    expect(out).toContain('**Since then**, 2026-01-03 10:00 UTC — full run of bench/media-s3.mjs. Machine: loaded.');
    expect(out).toContain('| s3 | 9 |');
    expect(out).not.toContain('| s3 | 1 |');
  });

  it('drops a partial run once a newer partial run measured all of its benches again', () => {
    const results = [
      '# Benchmark results',
      '## 2026-01-02 10:00 UTC — full run',
      '| figure | ours |',
      '| a | 2 |',
      '## 2026-01-03 10:00 UTC — full run of bench/media-s3.mjs, bench/runners.ts',
      '| figure | ours |',
      '| s3 | 9 |',
      '| runners | 4 |',
      '## 2026-01-04 10:00 UTC — full run of bench/media-s3.mjs',
      '| figure | ours |',
      '| s3 | 5 |',
      '## 2026-01-05 10:00 UTC — full run of bench/media-s3.mjs, bench/runners.ts',
      '| figure | ours |',
      '| s3 | 7 |',
      '| runners | 3 |',
    ].join('\n');
    const out = renderBench(results);
    expect(out).toContain('| a | 2 |');
    expect(out).toContain('| s3 | 7 |');
    expect(out).toContain('| runners | 3 |');
    for (const old of ['| s3 | 9 |', '| runners | 4 |', '| s3 | 5 |']) expect(out).not.toContain(old);
  });
});
