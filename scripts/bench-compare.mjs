// `node scripts/bench-compare.mjs --base REF [--rounds 3] [--quick] [bench…]`: the same benches on
// two trees of this repository, moments apart on one machine — REF (checked out once into a
// worktree under the system's temp folder, installed offline and built) and the working tree —
// alternating which goes first each round, so a noisy machine weighs on both alike. Prints, per
// figure both trees report, the medians, the median of the per-round ratios (this tree / REF) and
// whether it stays within 10 % in the direction that matters (a rate lower, a time higher); a
// figure that a bench measures against a reference of its own run (the hot path against a bare
// Hono route) shows that ratio before and after too, which tells the machine's noise from the
// code's difference. The table is
// appended to bench/RESULTS.md. Default benches: the JSON hot path (growth), load and first frame
// (web) — the figures issue 29 holds a redesign to.
//
//   node scripts/bench-compare.mjs --base 4d885d3 --quick growth load web
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, median } from '../bench/lib/report.mjs';
import { BENCH_NEEDS, ensureSystemPackages, must, pnpm, run } from './lib.mjs';

const TOLERANCE = 0.1;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
  },
});
if (!opt.base) {
  console.error('usage: node scripts/bench-compare.mjs --base REF [--rounds 3] [--quick] [bench…]');
  process.exit(2);
}
const rounds = Number(opt.rounds);
const wanted = positionals.length ? positionals : ['growth', 'load', 'web'];
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const baseSha = git('rev-parse', '--verify', `${opt.base}^{commit}`);
const headSha = git('rev-parse', 'HEAD');
const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
ensureSystemPackages(BENCH_NEEDS);

/** REF's tree, once: a detached worktree, its own node_modules (offline from the pnpm store) and build. */
function baseTree() {
  const dir = path.join(os.tmpdir(), `members-bench-${baseSha.slice(0, 12)}`);
  const ready = path.join(dir, '.bench-compare-ready');
  if (fs.existsSync(ready)) return dir;
  if (fs.existsSync(dir)) {
    run('git', ['worktree', 'remove', '--force', dir], { cwd: root });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  must('git', ['worktree', 'add', '--detach', dir, baseSha], { cwd: root });
  const [cmd, pre] = pnpm();
  if (run(cmd, [...pre, 'install', '--frozen-lockfile', '--offline'], { cwd: dir }) !== 0)
    must(cmd, [...pre, 'install', '--frozen-lockfile'], { cwd: dir });
  must(cmd, [...pre, 'build'], { cwd: dir });
  fs.writeFileSync(ready, `${new Date().toISOString()}\n`);
  return dir;
}

/** The bench files of `tree` whose names begin with a wanted one (`load`: load.mjs, not tus-upload.mjs), in `pnpm bench`'s order. */
function benchesOf(tree) {
  return fs
    .readdirSync(path.join(tree, 'bench'))
    .filter((f) => /\.(mjs|ts)$/.test(f) && !f.startsWith('_') && wanted.some((w) => f.startsWith(w)))
    .sort();
}

/** Runs the wanted benches of `tree` as `pnpm bench` would; returns their rows. */
function runBenches(tree, label, round) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `members-compare-${label}-`));
  const rowsFile = path.join(work, 'rows.jsonl');
  fs.writeFileSync(rowsFile, '');
  const env = { BENCH_ROWS: rowsFile, BENCH_WORK: work, ...(opt.quick ? { BENCH_QUICK: '1' } : {}) };
  const failed = [];
  try {
    for (const b of benchesOf(tree)) {
      console.log(`\n=== round ${round}, ${label}: bench/${b}${opt.quick ? ' (quick)' : ''}`);
      const file = path.join(tree, 'bench', b);
      const args = opt.quick ? ['--quick'] : [];
      const [cmd, argv] = b.endsWith('.ts') ? ['npx', ['tsx', file, ...args]] : ['node', [file, ...args]];
      const r = spawnSync(cmd, argv, {
        cwd: tree,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 2 ** 20,
      });
      const out = r.stdout?.toString() ?? '';
      process.stdout.write(out);
      if (r.status !== 0) failed.push(b);
      for (const line of out.split('\n')) if (line.startsWith('LOAD_RESULT ')) loadRows(JSON.parse(line.slice(12)), rowsFile);
    }
    const rows = fs
      .readFileSync(rowsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    return { rows, failed };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** bench/load.mjs prints its figures as one `LOAD_RESULT {json}` line rather than rows: the totals become rows here. */
function loadRows({ seconds, members, total }, rowsFile) {
  const what = `Load: ${members} members and 2 admins, ${seconds} s`;
  for (const row of [
    { figure: `${what}, requests per second`, ours: total.rps, unit: 'req/s' },
    { figure: `${what}, p50 latency`, ours: total.p50, unit: 'ms' },
    { figure: `${what}, p99 latency`, ours: total.p99, unit: 'ms' },
  ])
    fs.appendFileSync(rowsFile, `${JSON.stringify(row)}\n`);
}

/** A rate (`req/s`) is better higher; anything else (ms, MiB, s) better lower. */
const higherIsBetter = (unit) => /\/s$/.test(unit);

const base = baseTree();
/** figure → { unit, base: number[], head: number[], baseRatio: number[], headRatio: number[] }, index = round. */
const figures = new Map();
const failures = [];
const started = Date.now();
for (let r = 1; r <= rounds; r++) {
  const order = r % 2 ? ['base', 'head'] : ['head', 'base'];
  for (const which of order) {
    const { rows, failed } = runBenches(which === 'base' ? base : root, which, r);
    failures.push(...failed.map((f) => `${which} ${f} (round ${r})`));
    for (const row of rows) {
      // One figure across trees and rounds whatever counts its name carries ("our 14 response headers", "at 20,546 events"; not p50/p99).
      const key = row.figure.replace(/\b\d[\d,.]*\b/g, '#');
      const f = figures.get(key) ?? { figure: row.figure, unit: row.unit, base: [], head: [], baseRatio: [], headRatio: [] };
      if (which === 'head') f.figure = row.figure;
      f[which][r - 1] = row.ours;
      const ratio = row.ratio ?? (row.reference ? row.ours / row.reference : undefined);
      if (ratio !== undefined) f[`${which}Ratio`][r - 1] = ratio;
      figures.set(key, f);
    }
  }
}

const lines = [
  '| figure | before | after | after ÷ before (per round) | within 10 % | by its own reference: before → after |',
  '|---|---|---|---|---|---|',
];
let worse = 0;
for (const f of figures.values()) {
  const pairs = f.base.map((b, i) => [b, f.head[i]]).filter(([b, h]) => Number.isFinite(b) && Number.isFinite(h) && b !== 0);
  if (pairs.length === 0) continue;
  const ratios = pairs.map(([b, h]) => h / b);
  const ratio = median(ratios);
  const refPairs = f.baseRatio.map((b, i) => [b, f.headRatio[i]]).filter(([b, h]) => Number.isFinite(b) && Number.isFinite(h) && b !== 0);
  // The verdict is the figure's (the median of the rounds' ratios); its in-run reference, shown beside
  // it, says how much of a difference is the machine's (a bare route slowed alike).
  const ok = higherIsBetter(f.unit) ? ratio >= 1 - TOLERANCE : ratio <= 1 + TOLERANCE;
  if (!ok) worse++;
  const spread = ratios.length > 1 ? ` (${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))})` : '';
  const byRef = refPairs.length ? `${fmt(median(refPairs.map(([b]) => b)))}× → ${fmt(median(refPairs.map(([, h]) => h)))}×` : '—';
  lines.push(
    `| ${f.figure} | ${fmt(median(pairs.map(([b]) => b)))} ${f.unit} | ${fmt(median(pairs.map(([, h]) => h)))} ${f.unit} | ${fmt(ratio)}×${spread} | ${ok ? 'yes' : 'NO'} | ${byRef} |`,
  );
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ')} at the end, Node ${process.version}`;
const table = lines.join('\n');
const headLabel = `${headSha.slice(0, 7)}${dirty ? ' with uncommitted changes' : ''}`;
console.log(`\n${table}\n\nbefore = ${baseSha.slice(0, 7)}, after = ${headLabel}; ${rounds} round(s); ${machine}; ${minutes} min`);
if (failures.length) console.log(`benches that failed: ${failures.join(', ')}`);
const heading = `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — comparison${opt.quick ? ' (quick)' : ''}: ${baseSha.slice(0, 7)} (before) against ${headLabel} (after), ${wanted.join(', ')}`;
fs.appendFileSync(
  path.join(root, 'bench', 'RESULTS.md'),
  `\n${heading}\n\n\`node scripts/bench-compare.mjs\`: ${rounds} round(s), the two trees alternating which goes first. Machine: ${machine}. Took ${minutes} min.${failures.length ? ` Benches that failed: ${failures.join(', ')}.` : ''}\n\n${table}\n`,
);
process.exit(failures.length || worse ? 1 : 0);
