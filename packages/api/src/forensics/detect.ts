/**
 * Reading the A/B mark out of a copy (pure): the copy and the video's two marked variants are
 * decoded to small grayscale frames (FRAME_WIDTH×FRAME_HEIGHT, FRAME_RATE per second, see
 * reference.ts); the copy is aligned in time against the variants' mean, then each segment the copy
 * covers is read as A or B from the sign of the mark pattern's share in what the copy holds.
 *
 * Per frame, the copy `c` is fitted by least squares as `α·m + β + γ·p`, where `m = (A+B)/2` is
 * the reference frame without the mark and `p = (A−B)/2` the mark itself (the pattern's formula at 64×36). γ ≈ +1 in an A segment, −1 in a B
 * segment, ≈ 0 in a copy that never carried the mark; α and β absorb a changed contrast or
 * brightness (a screen capture, a re-grade). A segment's bit counts only when the mean of its
 * frames' γ is at least MIN_GAMMA away from 0 and agrees in sign in most of its frames.
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
 * The mark at the detector's size: the pattern's formula (pattern.ts) evaluated at each 64×36
 * cell's centre. Taken from the formula, not from the decoded variants: A and B decoded apart may
 * pick their frames a frame apart, and their difference would then hold motion, not the mark.
 */
export function markPattern(shape: PatternShape): Float64Array {
  const p = new Float64Array(FRAME_PIXELS);
  for (let y = 0; y < FRAME_HEIGHT; y++)
    for (let x = 0; x < FRAME_WIDTH; x++)
      p[y * FRAME_WIDTH + x] =
        MARK_AMPLITUDE *
        Math.cos((2 * Math.PI * shape.fx * (x + 0.5)) / FRAME_WIDTH + shape.phaseX) *
        Math.cos((2 * Math.PI * shape.fy * (y + 0.5)) / FRAME_HEIGHT + shape.phaseY);
  return p;
}

/** γ of one copy frame against reference mean frame `m` and pattern `p` (3-parameter least squares). */
function gammaOf(c: Uint8Array, cBase: number, a: Uint8Array, b: Uint8Array, rBase: number, p: Float64Array): number {
  // Normal equations for [m, 1, p].
  let smm = 0;
  let sm = 0;
  let smp = 0;
  let sp = 0;
  let spp = 0;
  let scm = 0;
  let sc = 0;
  let scp = 0;
  const n = FRAME_PIXELS;
  for (let k = 0; k < n; k++) {
    const m = ((a[rBase + k] ?? 0) + (b[rBase + k] ?? 0)) / 2;
    const pk = p[k] ?? 0;
    const ck = c[cBase + k] ?? 0;
    smm += m * m;
    sm += m;
    smp += m * pk;
    sp += pk;
    spp += pk * pk;
    scm += ck * m;
    sc += ck;
    scp += ck * pk;
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
): SegmentRead[] {
  const p = markPattern(shape);
  const reads: SegmentRead[] = [];
  for (let s = 0; s + 1 < segmentStarts.length; s++) {
    const from = (segmentStarts[s] ?? 0) + EDGE_SECONDS;
    const to = (segmentStarts[s + 1] ?? 0) - EDGE_SECONDS;
    const gammas: number[] = [];
    for (let r = Math.ceil(from * FRAME_RATE); r / FRAME_RATE <= to; r++) {
      const j = r - offset;
      if (j < 0 || j >= copy.count || r >= a.count || r >= b.count) continue;
      gammas.push(gammaOf(copy.data, j * FRAME_PIXELS, a.data, b.data, r * FRAME_PIXELS, p));
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
