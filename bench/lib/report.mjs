// Shared by the bench scripts: `--quick` (`--smoke`), and one row per figure for `pnpm bench`'s table.
// A bench appends its rows (JSON lines) to $BENCH_ROWS; scripts/bench.mjs prints them as one table
// and appends them to bench/RESULTS.md. Run alone, a bench just prints its rows.
import fs from 'node:fs';

/**
 * `--smoke` (BENCH_SMOKE=1): the smallest run that still goes through every code path and prints
 * every row, for the suite's check that no bench has rotted (packages/api/test/bench.int.test.ts). Its
 * figures are not measurements (one round, a second or two, a few members): the table says so.
 * A smoke run is also a quick one: every size a bench does not set for smoke is its quick size.
 */
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
export const QUICK = SMOKE || process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** A scratch directory shared by the benches of one `pnpm bench` run (generated stores are reused). */
export const WORK = process.env.BENCH_WORK;

/** Units where more is better: a reference in one of them must be a limit (see `report`). */
const HIGHER_IS_BETTER = /\/s$/;
/** How far above its reference a figure may measure before the reference stops being a limit (noise). */
export const LIMIT_SLACK = 1.1;

/**
 * @param {{ figure: string, ours: number, unit: string, reference?: number, referenceLabel?: string,
 *   target: string, pass?: boolean | null, note?: string, oursRange?: [number, number],
 *   referenceRange?: [number, number], aboveReference?: string, ratio?: number, ratioRange?: [number, number] }} row
 *   `ours` and `reference` in the same unit (medians when measured in rounds, with their min–max in
 *   `oursRange`/`referenceRange`); the ratio is ours / reference, or, measured in rounds, the median
 *   of each round's ratio (`ratio`, min–max in `ratioRange`): runs moments apart are the pairs that mean something. `pass` is whether the target holds
 *   (null: report only). A reference for a "higher is better" figure (a rate) is a physical limit:
 *   a ratio over LIMIT_SLACK means it is not one, and the row says so, unless `aboveReference`
 *   explains why the figure may beat it.
 */
export function report(row) {
  const full = { pass: null, ...row };
  const ratio = row.ratio ?? (row.reference ? row.ours / row.reference : undefined);
  if (ratio !== undefined && HIGHER_IS_BETTER.test(row.unit) && ratio > LIMIT_SLACK) {
    full.note = [
      row.note,
      row.aboveReference ?? `${ratio.toFixed(2)}× its reference: the reference is not a limit here, the comparison says nothing`,
    ]
      .filter(Boolean)
      .join('; ');
    if (!row.aboveReference) full.pass = false;
  }
  if (process.env.BENCH_ROWS) fs.appendFileSync(process.env.BENCH_ROWS, `${JSON.stringify(full)}\n`);
  const ratioText =
    ratio !== undefined
      ? ` (${ratio.toFixed(2)}×${row.ratioRange ? ` (${row.ratioRange[0].toFixed(2)}–${row.ratioRange[1].toFixed(2)}×)` : ''} ${row.referenceLabel ?? 'reference'} ${fmt(row.reference)}${range(row.referenceRange, row.unit)})`
      : '';
  console.log(
    `  ${row.figure}: ${fmt(row.ours)} ${row.unit}${range(row.oursRange)}${ratioText}  target ${row.target}${full.pass === false ? '  MISSED' : ''}${full.note && full.note !== row.note ? `  — ${full.note}` : ''}`,
  );
}

/** ` (min–max)` of a figure measured in rounds, or nothing. */
export function range(r, unit = '') {
  return r ? ` (${fmt(r[0])}–${fmt(r[1])}${unit ? ` ${unit}` : ''})` : '';
}

/** Median and min–max of a figure measured in rounds. */
export const spread = (xs) => ({ median: median(xs), range: /** @type {[number, number]} */ ([Math.min(...xs), Math.max(...xs)]) });

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
