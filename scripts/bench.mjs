// `pnpm bench [-- --quick | --smoke]`: runs every benchmark under bench/ (each measures its reference beside
// itself, in this same invocation), prints one table (figure, ours, reference, ratio, target) and
// appends it, dated, with the machine, to bench/RESULTS.md. `--quick` runs a small version of
// everything (a 20k-event store instead of 1M, short runs) in a few minutes; `--smoke` the smallest
// run that still goes through every step and prints every row (one round, a second or two), whose
// figures measure nothing: the suite's check that no bench has rotted (bench.int.test.ts) uses it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_NEEDS, ensureSystemPackages, run } from './lib.mjs';

const RESULTS_HEADER = `# Benchmark results

Appended by \`pnpm bench\` (full) and \`pnpm bench -- --quick\`. Every reference is measured in the same
invocation on the same machine, moments apart from the figure it is compared with; the ratio is the
figure that means something on a shared, noisy machine. A figure measured in rounds is the median with
its min–max in brackets. A reference for a rate is a physical limit: a ratio over 1.10× is flagged.
The newest run is at the bottom.
`;

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const smoke = process.argv.includes('--smoke');
const quick = smoke || process.argv.includes('--quick');
const size = smoke ? 'smoke' : quick ? 'quick' : 'full';
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const resultsFile = process.env.BENCH_RESULTS_FILE ?? path.join(root, 'bench', 'RESULTS.md');
const benches = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => /\.(mjs|ts)$/.test(f) && !f.startsWith('_'))
  // A whole file name picks that file alone (`load.mjs` is not `tus-upload.mjs`); a part picks every file holding it.
  .filter((f) => only.length === 0 || only.some((o) => (/\.(mjs|ts)$/.test(o) ? f === o : f.includes(o))))
  .sort();
ensureSystemPackages(BENCH_NEEDS);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'members-bench-'));
const rowsFile = path.join(work, 'rows.jsonl');
fs.writeFileSync(rowsFile, '');
const env = {
  ...process.env,
  BENCH_ROWS: rowsFile,
  BENCH_WORK: work,
  ...(quick ? { BENCH_QUICK: '1' } : {}),
  ...(smoke ? { BENCH_SMOKE: '1' } : {}),
};
const started = Date.now();
const failed = [];
try {
  for (const b of benches) {
    console.log(`\n=== bench/${b}${quick ? ` (${size})` : ''}`);
    const file = path.join(root, 'bench', b);
    const args = [...(quick ? ['--quick'] : []), ...(smoke ? ['--smoke'] : [])];
    // Node itself, with tsx as a loader for the TypeScript benches: `npx tsx` would add npm's start-up
    // and the tsx CLI's second process (which relays signals) to every bench.
    const nodeArgs = b.endsWith('.ts') ? ['--import', 'tsx', file, ...args] : [file, ...args];
    const code = run(process.execPath, nodeArgs, { env, cwd: root });
    if (code !== 0) failed.push(b);
  }
} finally {
  const rows = fs
    .readFileSync(rowsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  fs.rmSync(work, { recursive: true, force: true });
  const table = renderTable(rows);
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the end, Node ${process.version}`;
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`\n${table}\n\n${machine}; ${minutes} min${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
  // A run of some benches only says which: the docs' table is the newest run of them all (scripts/docs/figures.mjs).
  const of = only.length ? ` of ${benches.map((b) => `bench/${b}`).join(', ')}` : '';
  const heading = `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${size} run${of}`;
  const smokeNote = smoke ? ' A smoke run: every step once, at the smallest sizes; its figures are not measurements.' : '';
  const section = `${heading}\n\nMachine: ${machine}. Took ${minutes} min.${smokeNote}${failed.length ? ` Benches that failed: ${failed.join(', ')}.` : ''}\n\n${table}\n`;
  if (smoke && !process.env.BENCH_RESULTS_FILE) {
    // Its figures measure nothing: bench/RESULTS.md keeps measurements only.
    console.log('a smoke run: not appended to bench/RESULTS.md');
  } else {
    if (!fs.existsSync(resultsFile)) fs.writeFileSync(resultsFile, RESULTS_HEADER);
    fs.appendFileSync(resultsFile, `\n${section}`);
    console.log(`appended to ${path.relative(process.cwd(), resultsFile)}`);
  }
}
process.exit(failed.length ? 1 : 0);

function fmt(n) {
  if (n === undefined || n === null) return '—';
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/** A median measured in rounds carries its min–max: `435 (402–450)`. */
function withRange(n, r) {
  return `${fmt(n)}${r ? ` (${fmt(r[0])}–${fmt(r[1])})` : ''}`;
}

function renderTable(rows) {
  const lines = ['| figure | ours | reference | ratio | target | holds |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const ref =
      r.reference !== undefined
        ? `${withRange(r.reference, r.referenceRange)} ${r.unit}${r.referenceLabel ? ` (${r.referenceLabel})` : ''}`
        : '—';
    const q = r.ratio ?? (r.reference ? r.ours / r.reference : undefined);
    const ratio =
      q !== undefined ? `${q.toFixed(2)}×${r.ratioRange ? ` (${r.ratioRange[0].toFixed(2)}–${r.ratioRange[1].toFixed(2)}×)` : ''}` : '—';
    const holds = r.pass === true ? 'yes' : r.pass === false ? '**no**' : 'report';
    lines.push(
      `| ${r.figure}${r.note ? ` (${r.note})` : ''} | ${withRange(r.ours, r.oursRange)} ${r.unit} | ${ref} | ${ratio} | ${r.target} | ${holds} |`,
    );
  }
  return lines.join('\n');
}
