/**
 * Reading the A/B mark out of a copy (pure): the copy and the video's two marked variants are
 * decoded to small grayscale frames (FRAME_WIDTH×FRAME_HEIGHT, FRAME_RATE per second, see
 * transcode/watermarkVariants.ts); the copy is aligned in time against the variants' mean, its
 * crop and scaling are found (fitGeometry), then each segment the copy covers is read as A or B
 * from the sign of the mark pattern's share in what the copy holds.
 *
 * Per frame, the copy `c` is fitted by weighted least squares as `α·m + β + γ·p`, where `m = (A+B)/2`
 * is the reference frame without the mark and `p` the mark itself (the pattern's formula at 64×36),
 * both seen through the copy's geometry, and pixels on the picture's edges weigh less (edgeWeights).
 * γ ≈ +1 in an A segment, −1 in a B segment, ≈ 0 in a copy that never carried the mark; α and β
 * absorb a changed contrast or brightness (a screen capture, a re-grade). A segment's bit counts
 * only when the mean of its frames' γ is at least MIN_GAMMA away from 0 and agrees in sign in most
 * of its frames.
 */

import { MARK_AMPLITUDE, type PatternShape } from './pattern.js';

export const FRAME_WIDTH = 64;
export const FRAME_HEIGHT = 36;
export const FRAME_RATE = 5;
export const FRAME_PIXELS = FRAME_WIDTH * FRAME_HEIGHT;
/** |mean γ| a segment needs for its bit to count (the mark reads as ±1; an unmarked copy near 0). */
export const MIN_GAMMA = 0.4;
/** Frames this close to a segment's edges (seconds) are not read: the alignment is good to a frame. */
const EDGE_SECONDS = 0.25;

export interface Frames {
  /** frameCount × FRAME_PIXELS luma values. */
  data: Uint8Array;
  count: number;
}

export const framesOf = (data: Uint8Array): Frames => ({ data, count: Math.floor(data.length / FRAME_PIXELS) });

/** A coarse, brightness- and contrast-free signature of each frame: 16×9 block means, zero mean, unit length. */
function signatures(f: Frames): Float32Array[] {
  const bw = FRAME_WIDTH / 16;
  const bh = FRAME_HEIGHT / 9;
  const out: Float32Array[] = [];
  for (let i = 0; i < f.count; i++) {
    const v = new Float32Array(144);
    const base = i * FRAME_PIXELS;
    for (let y = 0; y < FRAME_HEIGHT; y++)
      for (let x = 0; x < FRAME_WIDTH; x++) {
        const k = Math.floor(y / bh) * 16 + Math.floor(x / bw);
        v[k] = (v[k] ?? 0) + (f.data[base + y * FRAME_WIDTH + x] ?? 0);
      }
    let mean = 0;
    for (const x of v) mean += x / 144;
    let norm = 0;
    for (let k = 0; k < 144; k++) {
      const d = (v[k] ?? 0) - mean;
      v[k] = d;
      norm += d * d;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < 144; k++) v[k] = (v[k] ?? 0) / norm;
    out.push(v);
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += (a[k] ?? 0) * (b[k] ?? 0);
  return s;
}

export interface Alignment {
  /** Reference frame index of the copy's first frame (may be negative: the copy starts before… never in practice). */
  offset: number;
  /** Mean correlation of the copy's frame signatures with the reference's at that offset (1: identical pictures). */
  score: number;
}

/**
 * Where the copy sits in the reference: the offset maximising the mean signature correlation, first
 * on every 5th copy frame over all offsets, then on every frame around the best few.
 */
export function align(reference: Frames, copy: Frames): Alignment | null {
  if (copy.count < 3 || reference.count < 3) return null;
  const ref = signatures(reference);
  const cp = signatures(copy);
  const scoreAt = (offset: number, step: number) => {
    let s = 0;
    let n = 0;
    for (let j = 0; j < cp.length; j += step) {
      const r = ref[offset + j];
      const c = cp[j];
      if (!r || !c) continue;
      s += dot(r, c);
      n++;
    }
    // Overlaps of under half the copy do not count: a stretch that mostly falls outside the video.
    return n * step >= Math.min(cp.length, ref.length) / 2 ? s / n : -1;
  };
  const coarse: Alignment[] = [];
  for (let o = -Math.floor(cp.length / 2); o < ref.length; o++) coarse.push({ offset: o, score: scoreAt(o, 5) });
  coarse.sort((a, b) => b.score - a.score);
  let best: Alignment | null = null;
  for (const c of coarse.slice(0, 5))
    for (let o = c.offset - 3; o <= c.offset + 3; o++) {
      const s = scoreAt(o, 1);
      if (!best || s > best.score) best = { offset: o, score: s };
    }
  return best;
}

/**
 * How the copy's picture sits on the reference's (a crop, then a scaling back to full frame): the
 * centre of copy pixel x (x + 0.5, in the copy's 64-wide grid) shows the reference at
 * `left + (x + 0.5)·sx` (in the reference's 64-wide grid), and likewise down. The identity for a
 * copy that kept the whole frame.
 */
export interface Geometry {
  sx: number;
  left: number;
  sy: number;
  top: number;
}

export const WHOLE_FRAME: Geometry = { sx: 1, left: 0, sy: 1, top: 0 };

/** Bilinear taps along one axis: for each copy pixel, the two reference pixels and the second's weight. */
interface Taps {
  lo: Int32Array;
  hi: Int32Array;
  w: Float64Array;
}

function taps(size: number, scale: number, start: number): Taps {
  const lo = new Int32Array(size);
  const hi = new Int32Array(size);
  const w = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const u = Math.min(size - 1, Math.max(0, start + (i + 0.5) * scale - 0.5));
    const f = Math.floor(u);
    lo[i] = f;
    hi[i] = Math.min(size - 1, f + 1);
    w[i] = u - f;
  }
  return { lo, hi, w };
}

/** The reference's unmarked frame `(A+B)/2` at frame `r`, seen through the copy's geometry. */
function warpedMean(a: Uint8Array, b: Uint8Array, r: number, tx: Taps, ty: Taps, out: Float64Array): Float64Array {
  const base = r * FRAME_PIXELS;
  const at = (y: number, x: number) => ((a[base + y * FRAME_WIDTH + x] ?? 0) + (b[base + y * FRAME_WIDTH + x] ?? 0)) / 2;
  for (let y = 0; y < FRAME_HEIGHT; y++) {
    const y0 = ty.lo[y] ?? 0;
    const y1 = ty.hi[y] ?? 0;
    const wy = ty.w[y] ?? 0;
    for (let x = 0; x < FRAME_WIDTH; x++) {
      const x0 = tx.lo[x] ?? 0;
      const x1 = tx.hi[x] ?? 0;
      const wx = tx.w[x] ?? 0;
      const top = at(y0, x0) * (1 - wx) + at(y0, x1) * wx;
      const bottom = at(y1, x0) * (1 - wx) + at(y1, x1) * wx;
      out[y * FRAME_WIDTH + x] = top * (1 - wy) + bottom * wy;
    }
  }
  return out;
}

/** What is left of copy frame `c` after the best `α·m + β` (least squares): how badly m explains it. */
function residual(c: Uint8Array, cBase: number, m: Float64Array): number {
  let sc = 0;
  let sm = 0;
  for (let k = 0; k < FRAME_PIXELS; k++) {
    sc += c[cBase + k] ?? 0;
    sm += m[k] ?? 0;
  }
  const mc = sc / FRAME_PIXELS;
  const mm = sm / FRAME_PIXELS;
  let scc = 0;
  let scm = 0;
  let smm = 0;
  for (let k = 0; k < FRAME_PIXELS; k++) {
    const dc = (c[cBase + k] ?? 0) - mc;
    const dm = (m[k] ?? 0) - mm;
    scc += dc * dc;
    scm += dc * dm;
    smm += dm * dm;
  }
  return smm > 0 ? scc - (scm * scm) / smm : scc;
}

/** Frames spread evenly over where the copy and the reference overlap: [copy frame, reference frame]. */
function spread(copy: Frames, reference: Frames, offset: number, count: number): Array<[number, number]> {
  const first = Math.max(0, -offset);
  const last = Math.min(copy.count, reference.count - offset) - 1;
  if (last < first) return [];
  const n = Math.min(count, last - first + 1);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const j = first + Math.round(((last - first) * (i + 0.5)) / n);
    out.push([j, j + offset]);
  }
  return out;
}

/**
 * The copy's crop and scaling (kept share 80–100 % of each axis), found by least residual: a
 * coarse search on each axis over 8 frames, then a pattern search on all four numbers over 16.
 * A crop of a few pixels moves the picture by a fraction of a 64×36 cell, and the edges in the
 * picture then leave a residue many times the mark's ±1.5 levels where the mark is read; fitting
 * the copy against the reference seen through its own geometry takes most of that residue away.
 */
export function fitGeometry(a: Frames, b: Frames, copy: Frames, offset: number): Geometry {
  const reference = a.count <= b.count ? a : b;
  const m = new Float64Array(FRAME_PIXELS);
  const cost = (g: Geometry, frames: Array<[number, number]>) => {
    const tx = taps(FRAME_WIDTH, g.sx, g.left);
    const ty = taps(FRAME_HEIGHT, g.sy, g.top);
    let s = 0;
    for (const [j, r] of frames) s += residual(copy.data, j * FRAME_PIXELS, warpedMean(a.data, b.data, r, tx, ty, m));
    return s;
  };
  const few = spread(copy, reference, offset, 8);
  if (few.length === 0) return WHOLE_FRAME;
  let best = WHOLE_FRAME;
  let bestCost = cost(best, few);
  for (const axis of ['x', 'y'] as const) {
    const size = axis === 'x' ? FRAME_WIDTH : FRAME_HEIGHT;
    for (let k = 0; k <= 10; k++)
      for (let start = -0.5, scale = 0.8 + k * 0.02; start <= (1 - scale) * size + 0.5; start += 0.5) {
        const g = axis === 'x' ? { ...best, sx: scale, left: start } : { ...best, sy: scale, top: start };
        const c = cost(g, few);
        if (c < bestCost) [best, bestCost] = [g, c];
      }
  }
  const many = spread(copy, reference, offset, 16);
  bestCost = cost(best, many);
  const step: Geometry = { sx: 0.01, left: 0.25, sy: 0.01, top: 0.25 };
  const keys = ['sx', 'left', 'sy', 'top'] as const;
  while (step.sx > 0.001) {
    let moved = false;
    for (const k of keys)
      for (const dir of [1, -1]) {
        const g = { ...best, [k]: Math.round((best[k] + dir * step[k]) * 1e6) / 1e6 };
        if (g.sx > 1 || g.sy > 1 || g.sx < 0.8 || g.sy < 0.8) continue;
        const c = cost(g, many);
        if (c < bestCost) {
          [best, bestCost] = [g, c];
          moved = true;
        }
      }
    if (!moved) for (const k of keys) step[k] /= 2;
  }
  return best;
}

/**
 * The mark at the detector's size: the pattern's formula (pattern.ts) evaluated at each 64×36
 * cell's centre, as the copy's geometry places it. Taken from the formula, not from the decoded
 * variants: A and B decoded apart may pick their frames a frame apart, and their difference would
 * then hold motion, not the mark.
 */
export function markPattern(shape: PatternShape, g: Geometry = WHOLE_FRAME): Float64Array {
  const p = new Float64Array(FRAME_PIXELS);
  for (let y = 0; y < FRAME_HEIGHT; y++)
    for (let x = 0; x < FRAME_WIDTH; x++)
      p[y * FRAME_WIDTH + x] =
        MARK_AMPLITUDE *
        Math.cos((2 * Math.PI * shape.fx * (g.left + (x + 0.5) * g.sx)) / FRAME_WIDTH + shape.phaseX) *
        Math.cos((2 * Math.PI * shape.fy * (g.top + (y + 0.5) * g.sy)) / FRAME_HEIGHT + shape.phaseY);
  return p;
}

/**
 * How much each pixel may be trusted when reading the mark: a picture seen through a crop is
 * known at the detector's size only by interpolation, which misses most where the picture has an
 * edge. The mark is smooth, so pixels on edges are weighed down (by their gradient, in levels per
 * cell, against EDGE_LEVELS) and the mark is read where the picture is flat.
 */
const EDGE_LEVELS = 8;

function edgeWeights(m: Float64Array, out: Float64Array): Float64Array {
  for (let y = 0; y < FRAME_HEIGHT; y++)
    for (let x = 0; x < FRAME_WIDTH; x++) {
      const k = y * FRAME_WIDTH + x;
      const gx = ((m[y * FRAME_WIDTH + Math.min(FRAME_WIDTH - 1, x + 1)] ?? 0) - (m[y * FRAME_WIDTH + Math.max(0, x - 1)] ?? 0)) / 2;
      const gy = ((m[Math.min(FRAME_HEIGHT - 1, y + 1) * FRAME_WIDTH + x] ?? 0) - (m[Math.max(0, y - 1) * FRAME_WIDTH + x] ?? 0)) / 2;
      out[k] = 1 / (1 + (gx * gx + gy * gy) / (EDGE_LEVELS * EDGE_LEVELS));
    }
  return out;
}

/** γ of one copy frame against the (warped) reference mean frame `m` and pattern `p`: least squares weighted by `w`. */
function gammaOf(c: Uint8Array, cBase: number, m: Float64Array, p: Float64Array, w: Float64Array): number {
  // Normal equations for [m, 1, p].
  let smm = 0;
  let sm = 0;
  let smp = 0;
  let sp = 0;
  let spp = 0;
  let scm = 0;
  let sc = 0;
  let scp = 0;
  let n = 0;
  for (let k = 0; k < FRAME_PIXELS; k++) {
    const wk = w[k] ?? 0;
    const mk = m[k] ?? 0;
    const pk = p[k] ?? 0;
    const ck = c[cBase + k] ?? 0;
    n += wk;
    smm += wk * mk * mk;
    sm += wk * mk;
    smp += wk * mk * pk;
    sp += wk * pk;
    spp += wk * pk * pk;
    scm += wk * ck * mk;
    sc += wk * ck;
    scp += wk * ck * pk;
  }
  const M = [
    [smm, sm, smp],
    [sm, n, sp],
    [smp, sp, spp],
  ];
  const y = [scm, sc, scp];
  const det = (q: number[][]) =>
    (q[0]?.[0] ?? 0) * ((q[1]?.[1] ?? 0) * (q[2]?.[2] ?? 0) - (q[1]?.[2] ?? 0) * (q[2]?.[1] ?? 0)) -
    (q[0]?.[1] ?? 0) * ((q[1]?.[0] ?? 0) * (q[2]?.[2] ?? 0) - (q[1]?.[2] ?? 0) * (q[2]?.[0] ?? 0)) +
    (q[0]?.[2] ?? 0) * ((q[1]?.[0] ?? 0) * (q[2]?.[1] ?? 0) - (q[1]?.[1] ?? 0) * (q[2]?.[0] ?? 0));
  const d = det(M);
  if (Math.abs(d) < 1e-9) return 0;
  // Cramer's rule for the third unknown (γ).
  const M3 = M.map((row, i) => [row[0] ?? 0, row[1] ?? 0, y[i] ?? 0]);
  return det(M3) / d;
}

export interface SegmentRead {
  /** Segment position in the video (0-based). */
  index: number;
  /** Mean γ over the segment's frames: > 0 reads A (bit 0), < 0 reads B (bit 1). */
  gamma: number;
  /** Share of the segment's frames whose γ has the mean's sign. */
  agreement: number;
  frames: number;
  /** The bit, or null when the segment does not read clearly enough to count. */
  bit: 0 | 1 | null;
}

/**
 * Reads every segment the aligned copy covers. `segmentStarts` are the segments' start times in
 * seconds (the last entry: the video's end).
 */
export function readSegments(
  a: Frames,
  b: Frames,
  copy: Frames,
  offset: number,
  segmentStarts: readonly number[],
  shape: PatternShape,
  geometry?: Geometry,
): SegmentRead[] {
  const g = geometry ?? fitGeometry(a, b, copy, offset);
  const p = markPattern(shape, g);
  const tx = taps(FRAME_WIDTH, g.sx, g.left);
  const ty = taps(FRAME_HEIGHT, g.sy, g.top);
  const m = new Float64Array(FRAME_PIXELS);
  const w = new Float64Array(FRAME_PIXELS);
  const reads: SegmentRead[] = [];
  for (let s = 0; s + 1 < segmentStarts.length; s++) {
    const from = (segmentStarts[s] ?? 0) + EDGE_SECONDS;
    const to = (segmentStarts[s + 1] ?? 0) - EDGE_SECONDS;
    const gammas: number[] = [];
    for (let r = Math.ceil(from * FRAME_RATE); r / FRAME_RATE <= to; r++) {
      const j = r - offset;
      if (j < 0 || j >= copy.count || r >= a.count || r >= b.count) continue;
      warpedMean(a.data, b.data, r, tx, ty, m);
      gammas.push(gammaOf(copy.data, j * FRAME_PIXELS, m, p, edgeWeights(m, w)));
    }
    // A segment the copy covers only in part is not read.
    const expected = Math.floor((to - from) * FRAME_RATE);
    if (gammas.length === 0 || gammas.length < expected) continue;
    const mean = gammas.reduce((x, y) => x + y, 0) / gammas.length;
    const agreement = gammas.filter((g) => Math.sign(g) === Math.sign(mean)).length / gammas.length;
    const clear = Math.abs(mean) >= MIN_GAMMA && agreement >= 0.75;
    reads.push({ index: s, gamma: mean, agreement, frames: gammas.length, bit: clear ? (mean > 0 ? 0 : 1) : null });
  }
  return reads;
}
