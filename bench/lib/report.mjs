// Shared by the bench scripts: `--quick`, and one row per figure for `pnpm bench`'s table.
// A bench appends its rows (JSON lines) to $BENCH_ROWS; scripts/bench.mjs prints them as one table
// and appends them to bench/RESULTS.md. Run alone, a bench just prints its rows.
import fs from 'node:fs';

export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** A scratch directory shared by the benches of one `pnpm bench` run (generated stores are reused). */
export const WORK = process.env.BENCH_WORK;

/**
 * @param {{ figure: string, ours: number, unit: string, reference?: number, referenceLabel?: string,
 *   target: string, pass?: boolean | null, note?: string }} row
 *   `ours` and `reference` in the same unit; the ratio is ours / reference. `pass` is whether the
 *   target holds (null: report only).
 */
export function report(row) {
  const full = { pass: null, ...row };
  if (process.env.BENCH_ROWS) fs.appendFileSync(process.env.BENCH_ROWS, `${JSON.stringify(full)}\n`);
  const ratio = row.reference ? ` (${(row.ours / row.reference).toFixed(2)}× ${row.referenceLabel ?? 'reference'})` : '';
  console.log(`  ${row.figure}: ${fmt(row.ours)} ${row.unit}${ratio}  target ${row.target}${row.pass === false ? '  MISSED' : ''}`);
}

export function fmt(n) {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
