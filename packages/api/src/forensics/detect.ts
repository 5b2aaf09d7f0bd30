/**
 * Reading the A/B mark out of a copy (pure): the copy and the video's two marked variants are
 * decoded to small grayscale frames (FRAME_WIDTH×FRAME_HEIGHT, FRAME_RATE per second, see
 * transcode/watermarkVariants.ts); the copy is aligned in time against the variants' mean, its
 * crop and scaling are found (fitGeometry), its place is refined and its match scored through that
 * crop (refineOffset, geometricScore: identify.ts `locateCopy`), then each segment the copy covers
 * is read as A or B from the sign of the mark pattern's share in what the copy holds.
 *
 * Per frame, the copy `c` is fitted by weighted least squares as `α·m + β + δ·(m−128)²/128 + γ·p`, where `m = (A+B)/2`
 * is the reference frame without the mark and `p` the mark itself (the pattern's formula at 64×36),
 * both seen through the copy's geometry, and pixels on the picture's edges weigh less (edgeWeights).
 * γ ≈ +1 in an A segment, −1 in a B segment, ≈ 0 in a copy that never carried the mark; α, β and δ
 * absorb a changed contrast, brightness or tone curve (a screen capture, a re-grade).
 *
 * The picture itself can look a little like the pattern: fine texture, grain or a gradient that the
 * leak's encoder renders differently from the reference's adds the same share `κ` to γ in every
 * frame of a segment, and `κ` drifts slowly with the picture while the bits change independently
 * every second. So each segment's mark is its mean γ less the content's share `κ` estimated from
 * its neighbours (contentShares): measured on the realistic corpus this halves the misread bits and
 * names copies of fine texture it named 1 in 12 times before (docs/leak-tracing.md). And a leak's
 * encoder that skips unchanged blocks keeps part of the previous second's mark in each segment; that
 * carried share is taken away first (nonMarkShares). A segment's bit counts only when what is left
 * is at least MIN_GAMMA away from 0 and agrees in sign in most of its frames.
 */

import { MARK_AMPLITUDE, type PatternShape } from './pattern.js';

export const FRAME_WIDTH = 64;
export const FRAME_HEIGHT = 36;
export const FRAME_PIXELS = FRAME_WIDTH * FRAME_HEIGHT;
/** The reference's rate: at most this many frames a second, each one a frame of the video (see `referenceRate`). */
export const REFERENCE_MAX_RATE = 15;
/** |mean γ − κ| a segment needs for its bit to count (the mark reads as ±1; an unmarked copy near 0). */
export const MIN_GAMMA = 0.25;
/** Segments on each side whose γ estimates a segment's content share κ (contentShares). */
export const CONTENT_NEIGHBOURS = 3;
/** Frames this close to a segment's edges (seconds) are not read: the switch from A to B blurs across a frame or two. */
const EDGE_SECONDS = 0.1;

export interface Frames {
  /** count × FRAME_PIXELS luma values. */
  data: Uint8Array;
  count: number;
  /** Each frame's presentation time, seconds. */
  times: Float64Array;
}

/**
 * The reference rate for a video of `sourceRate` frames a second: the source's own rate divided by
 * a whole number (30 → 15, 25 → 12.5, 24 → 12, 60 → 15), so every reference frame IS a frame of the
 * video at a known instant — a copy's frame that shows the same instant then matches it exactly,
 * grain and all. As an ffmpeg `fps` rational and as a number.
 */
export function referenceRate(sourceRate: { num: number; den: number } | null): { rational: string; rate: number } {
  if (!sourceRate || !(sourceRate.num > 0 && sourceRate.den > 0)) return { rational: String(REFERENCE_MAX_RATE), rate: REFERENCE_MAX_RATE };
  const step = Math.max(1, Math.ceil(sourceRate.num / sourceRate.den / REFERENCE_MAX_RATE));
  return { rational: `${sourceRate.num}/${sourceRate.den * step}`, rate: sourceRate.num / (sourceRate.den * step) };
}

/** A reference as the detector reads it: the A and B frames at `rate`, and the video's own frame rate. */
export interface Reference {
  a: Frames;
  b: Frames;
  /** Frames a second of the stored reference (frame i at i/rate). */
  rate: number;
  /** The video's frame rate, when the reference knows it (older ones, at 5 frames a second, do not). */
  sourceRate: number | null;
  /** Start time of every segment, seconds, and the video's end last. */
  segmentStarts: readonly number[];
  /**
   * Where the mark is read from. `variants`: B is A with B's keyframe (transcode/keyframeSplice.ts),
   * so A and B differ by the mark alone and their difference is read (variantMark). Absent (older
   * references, whose A and B were two whole encodes that drift apart): the pattern's formula.
   */
  mark?: 'variants';
}

/** A zero-mean, unit-length signature of each of a frame's `bx`×`by` block means: brightness- and contrast-free. */
function signature(f: Frames, i: number, bx: number, by: number): Float32Array {
  return blockSignature(f.data, i * FRAME_PIXELS, bx, by);
}

/** `signature` of the FRAME_WIDTH×FRAME_HEIGHT frame at `base` in `pixels`. */
function blockSignature(pixels: ArrayLike<number>, base: number, bx: number, by: number): Float32Array {
  const cw = FRAME_WIDTH / bx;
  const ch = FRAME_HEIGHT / by;
  const n = bx * by;
  const v = new Float32Array(n);
  for (let y = 0; y < FRAME_HEIGHT; y++) {
    const row = Math.floor(y / ch) * bx;
    for (let x = 0; x < FRAME_WIDTH; x++) {
      const k = row + Math.floor(x / cw);
      v[k] = (v[k] ?? 0) + (pixels[base + y * FRAME_WIDTH + x] ?? 0);
    }
  }
  let mean = 0;
  for (const x of v) mean += x / n;
  let norm = 0;
  for (let k = 0; k < n; k++) {
    const d = (v[k] ?? 0) - mean;
    v[k] = d;
    norm += d * d;
  }
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < n; k++) v[k] = (v[k] ?? 0) / norm;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += (a[k] ?? 0) * (b[k] ?? 0);
  return s;
}

/** Signatures computed once per frame, on demand (a long reference is mostly never looked at closely). */
function signatures(f: Frames, bx: number, by: number): (i: number) => Float32Array {
  const cache = new Map<number, Float32Array>();
  return (i) => {
    let s = cache.get(i);
    if (!s) {
      s = signature(f, i, bx, by);
      cache.set(i, s);
    }
    return s;
  };
}

export interface Alignment {
  /** Seconds to add to a copy frame's time to get the reference time it shows. */
  offset: number;
  /** Mean correlation of the copy's frame signatures with the reference's at that offset (1: identical pictures). */
  score: number;
}

/** The copy frames nearest each `step` seconds of the copy. */
function samples(copy: Frames, step: number): number[] {
  const out: number[] = [];
  let next = copy.times[0] ?? 0;
  for (let j = 0; j < copy.count; j++)
    if ((copy.times[j] ?? 0) >= next - 1e-6) {
      out.push(j);
      next = (copy.times[j] ?? 0) + step;
    }
  return out;
}

/**
 * The offset of `offsets` that scores highest (within 1e-12; a score that is not finite never
 * counts). Neighbouring offsets that pair the same frames score the same: the middle of that run
 * (within 0.1 s of the first best). Null when none scored.
 */
function bestOffset(offsets: readonly number[], scoreAt: (offset: number) => number): Alignment | null {
  let best: Alignment | null = null;
  let ties: number[] = [];
  for (const o of offsets) {
    const s = scoreAt(o);
    if (!Number.isFinite(s)) continue;
    if (!best || s > best.score + 1e-12) {
      best = { offset: o, score: s };
      ties = [o];
    } else if (Math.abs(s - best.score) <= 1e-12) ties.push(o);
  }
  if (!best) return null;
  const first = best.offset;
  const run = ties.filter((o) => Math.abs(o - first) < 0.1).sort((x, y) => x - y);
  return { offset: run[Math.floor(run.length / 2)] ?? first, score: best.score };
}

/**
 * Where the copy sits in the reference (a reference at `rate` frames a second): the offset, in
 * seconds, maximising the mean signature correlation of copy frames with the reference frame
 * nearest the same instant. First coarse (16×9 blocks, a copy frame every half second, offsets
 * every 0.2 s), then fine around the best few (32×18 blocks, a frame every 0.1 s, offsets every
 * 1/120 s): a copy cut between two frames of the reference, or captured at another frame rate,
 * still finds the instant each of its frames shows.
 */
export function align(reference: Frames, rate: number, copy: Frames, sourceRate: number | null = null): Alignment | null {
  if (copy.count < 3 || reference.count < 3) return null;
  const coarseRef = signatures(reference, 16, 9);
  const coarseCopy = signatures(copy, 16, 9);
  const fineRef = signatures(reference, 32, 18);
  const fineCopy = signatures(copy, 32, 18);
  const first = copy.times[0] ?? 0;
  const length = (copy.times[copy.count - 1] ?? 0) - first;
  const refLength = reference.count / rate;
  const scoreAt = (offset: number, js: number[], ref: typeof coarseRef, cp: typeof coarseCopy, tolerance: number) => {
    let s = 0;
    let n = 0;
    let overlap = 0;
    for (const j of js) {
      const t = (copy.times[j] ?? 0) + offset;
      const r = Math.round(t * rate);
      if (r < 0 || r >= reference.count) continue;
      overlap++;
      if (Math.abs(r / rate - t) > tolerance) continue;
      s += dot(ref(r), cp(j));
      n++;
    }
    // Overlaps of under half the copy do not count: a stretch that mostly falls outside the video.
    return overlap >= Math.min(js.length, refLength * (js.length / Math.max(length, 1e-9))) / 2 && n > 0 ? s / n : -1;
  };
  const coarseSamples = samples(copy, 0.5);
  const coarse: Alignment[] = [];
  for (let o = -first - length / 2; o < refLength - first; o += 0.2)
    coarse.push({ offset: o, score: scoreAt(o, coarseSamples, coarseRef, coarseCopy, Number.POSITIVE_INFINITY) });
  coarse.sort((a, b) => b.score - a.score);
  // Fine: only copy frames that land on a reference frame count (see matchedFrames), so the score
  // peaks where they show the very frames the reference kept, grain and all.
  const tolerance = landingTolerance(sourceRate);
  const fineSamples = samples(copy, 0.1);
  const best = bestOffset(
    coarse.slice(0, 4).flatMap((c) => Array.from({ length: 73 }, (_, i) => c.offset + (i - 36) / 120)),
    (o) => scoreAt(o, fineSamples, fineRef, fineCopy, tolerance),
  );
  if (!best) return null;
  const { offset } = best;
  // The score reported is the coarse one (16×9, every frame), the scale MIN_ALIGNMENT was set on.
  return { offset, score: scoreAt(offset, coarseSamples, coarseRef, coarseCopy, Number.POSITIVE_INFINITY) };
}

/**
 * The copy frames that show an instant the reference holds, each with its reference frame:
 * [copy frame, reference frame]. With the video's frame rate known, a copy frame counts only when it
 * lands within a third of a video frame of a reference frame (a copy at 30 fps of a 15 fps
 * reference: every other frame); without it (an older reference), the nearest reference frame.
 */
export function matchedFrames(ref: Reference, copy: Frames, offset: number): Array<[number, number]> {
  const landing = landingFrame(ref);
  const out: Array<[number, number]> = [];
  for (let j = 0; j < copy.count; j++) {
    const r = landing((copy.times[j] ?? 0) + offset);
    if (r !== null) out.push([j, r]);
  }
  return out;
}

/** How far from a reference frame's instant a copy frame may be to show it: a third of a video frame (any, without the video's rate). */
const landingTolerance = (sourceRate: number | null) => (sourceRate ? 1 / (3 * sourceRate) : Number.POSITIVE_INFINITY);

/** The reference frame a copy frame at reference time `t` shows (matchedFrames' rule), or null. */
function landingFrame(ref: Reference): (t: number) => number | null {
  const tolerance = landingTolerance(ref.sourceRate);
  const count = Math.min(ref.a.count, ref.b.count);
  return (t) => {
    const r = Math.round(t * ref.rate);
    return r < 0 || r >= count || Math.abs(r / ref.rate - t) > tolerance ? null : r;
  };
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

/** A 64×36 picture given cell by cell, seen through the copy's geometry (bilinear). */
function warp(at: (y: number, x: number) => number, tx: Taps, ty: Taps, out: Float64Array): Float64Array {
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

/** The reference's unmarked frame `(A+B)/2` at frame `r`, seen through the copy's geometry. */
function warpedMean(a: Uint8Array, b: Uint8Array, r: number, tx: Taps, ty: Taps, out: Float64Array): Float64Array {
  const base = r * FRAME_PIXELS;
  return warp((y, x) => ((a[base + y * FRAME_WIDTH + x] ?? 0) + (b[base + y * FRAME_WIDTH + x] ?? 0)) / 2, tx, ty, out);
}

/** Below this RMS (levels) the variants' difference at a frame is no mark to read (it is ~0.75 at a keyframe). */
const MIN_MARK_LEVEL = 0.1;

const meanSquare = (v: Float64Array) => {
  let sum = 0;
  for (let k = 0; k < v.length; k++) sum += (v[k] ?? 0) ** 2;
  return sum / v.length;
};

/** Binomial taps (σ ≈ 1 cell), applied twice along each axis: keeps the smooth mark, averages away the grain's noise. */
const SMOOTHING = [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16];

function smoothAlong(v: Float64Array, out: Float64Array, horizontal: boolean): void {
  for (let y = 0; y < FRAME_HEIGHT; y++)
    for (let x = 0; x < FRAME_WIDTH; x++) {
      let sum = 0;
      for (let k = -2; k <= 2; k++) {
        const xx = horizontal ? Math.min(FRAME_WIDTH - 1, Math.max(0, x + k)) : x;
        const yy = horizontal ? y : Math.min(FRAME_HEIGHT - 1, Math.max(0, y + k));
        sum += (SMOOTHING[k + 2] ?? 0) * (v[yy * FRAME_WIDTH + xx] ?? 0);
      }
      out[y * FRAME_WIDTH + x] = sum;
    }
}

/**
 * The mark as the variants themselves show it at frame `r`: `(A − B)/2`, smoothed, seen through
 * the copy's geometry. For a reference whose B is A with B's keyframe (transcode/keyframeSplice.ts)
 * this is the mark exactly where each frame has it: B's keyframe's mark carried along by the
 * motion and fading where the encoder coded blocks afresh, which the fixed pattern's formula
 * misses on a moving picture (on the corpus's panning dark footage its correlation with the
 * variants' difference falls from 0.88 at the keyframe to 0.16 a second later).
 */
function variantMark(
  a: Uint8Array,
  b: Uint8Array,
  r: number,
  tx: Taps,
  ty: Taps,
  scratch: [Float64Array, Float64Array],
  out: Float64Array,
): Float64Array {
  const base = r * FRAME_PIXELS;
  const [one, two] = scratch;
  for (let k = 0; k < FRAME_PIXELS; k++) one[k] = ((a[base + k] ?? 0) - (b[base + k] ?? 0)) / 2;
  for (let pass = 0; pass < 2; pass++) {
    smoothAlong(one, two, true);
    smoothAlong(two, one, false);
  }
  return warp((y, x) => one[y * FRAME_WIDTH + x] ?? 0, tx, ty, out);
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

/** `count` pairs spread evenly over the matched frames. */
function spread(pairs: Array<[number, number]>, count: number): Array<[number, number]> {
  const n = Math.min(count, pairs.length);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) out.push(pairs[Math.floor(((i + 0.5) * pairs.length) / n)] as [number, number]);
  return out;
}

/**
 * The copy's crop and scaling (kept share 80–100 % of each axis), found by least residual: a
 * coarse search on each axis over 8 frames, then a pattern search on all four numbers over 16.
 * A crop of a few pixels moves the picture by a fraction of a 64×36 cell, and the edges in the
 * picture then leave a residue many times the mark's ±1.5 levels where the mark is read; fitting
 * the copy against the reference seen through its own geometry takes most of that residue away.
 */
export function fitGeometry(ref: Reference, copy: Frames, offset: number): Geometry {
  const { a, b } = ref;
  const pairs = matchedFrames(ref, copy, offset);
  const m = new Float64Array(FRAME_PIXELS);
  const cost = (g: Geometry, frames: Array<[number, number]>) => {
    const tx = taps(FRAME_WIDTH, g.sx, g.left);
    const ty = taps(FRAME_HEIGHT, g.sy, g.top);
    let s = 0;
    for (const [j, r] of frames) s += residual(copy.data, j * FRAME_PIXELS, warpedMean(a.data, b.data, r, tx, ty, m));
    return s;
  };
  const few = spread(pairs, 8);
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
  const many = spread(pairs, 16);
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
 * The alignment score (align's: 16×9 block signatures, a copy frame every half second) of the copy
 * against the reference's unmarked frames seen through the copy's geometry, counting only copy
 * frames that show a frame the reference kept (matchedFrames). A crop of a few percent
 * moves every block's content, and on footage whose pictures change often (cuts, fades) the score
 * without the geometry falls to 0.84–0.87 for copies that are this video; with it, it is what an
 * uncropped copy scores.
 */
export function geometricScore(ref: Reference, copy: Frames, offset: number, g: Geometry): number {
  const tx = taps(FRAME_WIDTH, g.sx, g.left);
  const ty = taps(FRAME_HEIGHT, g.sy, g.top);
  const m = new Float64Array(FRAME_PIXELS);
  let s = 0;
  let n = 0;
  let next = Number.NEGATIVE_INFINITY;
  // Copy frames that show a frame the reference kept, one every half second: a copy frame between
  // two reference frames, compared with the nearer one, shows the other scene next to a cut.
  for (const [j, r] of matchedFrames(ref, copy, offset)) {
    const t = copy.times[j] ?? 0;
    if (t < next - 1e-6) continue;
    next = t + 0.5;
    warpedMean(ref.a.data, ref.b.data, r, tx, ty, m);
    s += dot(blockSignature(m, 0, 16, 9), signature(copy, j, 16, 9));
    n++;
  }
  return n > 0 ? s / n : -1;
}

/**
 * The copy's place again, once its geometry is known: align's fine step (32×18 signatures, a copy
 * frame every 0.1 s, offsets 1/120 s apart, only copy frames that land on a reference frame) within
 * 0.2 s of `offset`, against the reference seen through the copy's crop. A crop and scaling look
 * much like a moment later in footage that zooms in, so whole frames against whole frames can pick
 * an instant two frames off (measured: a 4 % crop of footage with cuts, 0.08 s off; its samples next
 * to a cut then showed the other scene).
 */
export function refineOffset(ref: Reference, copy: Frames, offset: number, g: Geometry): number {
  const tx = taps(FRAME_WIDTH, g.sx, g.left);
  const ty = taps(FRAME_HEIGHT, g.sy, g.top);
  const m = new Float64Array(FRAME_PIXELS);
  const landing = landingFrame(ref);
  const warped = new Map<number, Float32Array>();
  const refSignature = (r: number) => {
    let v = warped.get(r);
    if (!v) {
      v = blockSignature(warpedMean(ref.a.data, ref.b.data, r, tx, ty, m), 0, 32, 18);
      warped.set(r, v);
    }
    return v;
  };
  const copySignature = signatures(copy, 32, 18);
  const js = samples(copy, 0.1);
  const scoreAt = (o: number) => {
    let sum = 0;
    let n = 0;
    for (const j of js) {
      const r = landing((copy.times[j] ?? 0) + o);
      if (r === null) continue;
      sum += dot(refSignature(r), copySignature(j));
      n++;
    }
    return n > 0 ? sum / n : Number.NEGATIVE_INFINITY;
  };
  return (
    bestOffset(
      Array.from({ length: 49 }, (_, i) => offset + (i - 24) / 120),
      scoreAt,
    )?.offset ?? offset
  );
}

/**
 * The mark at the detector's size: the pattern's formula (pattern.ts) evaluated at each 64×36
 * cell's centre, as the copy's geometry places it. What references kept before the keyframe splice
 * are read with: their A and B are two whole encodes, whose difference holds the encodes' drift
 * (and, decoded apart, may be a frame apart); a newer reference's is the mark (variantMark).
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

/**
 * γ of one copy frame against the (warped) reference mean frame `m` and pattern `p`: least squares,
 * weighted by `w`, on `[m, 1, p, (m − 128)²/128]`. The last term lets the fit bend with a changed
 * tone curve (a re-grade's gamma and contrast, a screen capture's colour management), which a
 * straight `α·m + β` leaves behind in the residual, where it reads as mark: on the corpus's heavy
 * grain re-graded with gamma 1.3, 7 and 4 of a copy's bits were misread without it, none with it.
 */
function gammaOf(c: Uint8Array, cBase: number, m: Float64Array, p: Float64Array, w: Float64Array): number {
  const n = 4;
  const M: Float64Array[] = Array.from({ length: n }, () => new Float64Array(n + 1));
  const x = new Float64Array(n);
  for (let k = 0; k < FRAME_PIXELS; k++) {
    const wk = w[k] ?? 0;
    const mk = m[k] ?? 0;
    x[0] = mk;
    x[1] = 1;
    x[2] = p[k] ?? 0;
    x[3] = ((mk - 128) * (mk - 128)) / 128;
    const ck = c[cBase + k] ?? 0;
    for (let i = 0; i < n; i++) {
      const row = M[i] as Float64Array;
      for (let j = 0; j < n; j++) row[j] = (row[j] ?? 0) + wk * (x[i] ?? 0) * (x[j] ?? 0);
      row[n] = (row[n] ?? 0) + wk * (x[i] ?? 0) * ck;
    }
  }
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(M[r]?.[col] ?? 0) > Math.abs(M[piv]?.[col] ?? 0)) piv = r;
    if (Math.abs(M[piv]?.[col] ?? 0) < 1e-9) return 0;
    [M[col], M[piv]] = [M[piv] as Float64Array, M[col] as Float64Array];
    const pr = M[col] as Float64Array;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const row = M[r] as Float64Array;
      const f = (row[col] ?? 0) / (pr[col] ?? 1);
      for (let j = col; j <= n; j++) row[j] = (row[j] ?? 0) - f * (pr[j] ?? 0);
    }
  }
  return (M[2]?.[n] ?? 0) / (M[2]?.[2] ?? 1);
}

export interface SegmentRead {
  /** Segment position in the video (0-based). */
  index: number;
  /** Mean γ over the segment's frames. */
  gamma: number;
  /** The share of γ in this segment that is not its mark: carried over from the segment before, and the picture's own (nonMarkShares). */
  content: number;
  /** Share of the segment's frames whose γ − content has the sign of the mark. */
  agreement: number;
  frames: number;
  /** The bit: gamma − content > 0 reads A (0), < 0 reads B (1); null when the segment does not read clearly enough to count. */
  bit: 0 | 1 | null;
}

const meanOf = (v: readonly number[]) => v.reduce((x, y) => x + y, 0) / Math.max(1, v.length);

function median(v: readonly number[]): number {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  if (n === 0) return 0;
  return n % 2 ? (s[(n - 1) / 2] ?? 0) : ((s[n / 2 - 1] ?? 0) + (s[n / 2] ?? 0)) / 2;
}

/** Mean of `v` over the CONTENT_NEIGHBOURS positions on each side of `k` (not `k` itself). */
function neighboursMean(v: readonly number[], k: number): number {
  let sum = 0;
  let n = 0;
  for (let j = Math.max(0, k - CONTENT_NEIGHBOURS); j <= Math.min(v.length - 1, k + CONTENT_NEIGHBOURS); j++)
    if (j !== k) {
      sum += v[j] ?? 0;
      n++;
    }
  return n > 0 ? sum / n : 0;
}

/**
 * Each segment's content share κ of γ (segments in video order): γ = ±A + κ, with the sign a fresh
 * bit every segment and κ drifting slowly. A first estimate takes κ as the neighbours' mean γ (their
 * bits average out only roughly); the mark's size A is then the median |γ − κ|, each neighbour's
 * content is its γ less its mark (±A by that first reading), and κ is the neighbours' mean content.
 * The bits read never depend on a member's code, so the false-match bound (code.ts) is unchanged.
 */
export function contentShares(gammas: readonly number[]): number[] {
  const first = gammas.map((g, k) => g - neighboursMean(gammas, k));
  const size = median(first.map(Math.abs));
  const content = gammas.map((g, k) => g - Math.sign(first[k] ?? 0) * size);
  return gammas.map((_, k) => neighboursMean(content, k));
}

/** How much of each segment's γ the previous segment's carries over (at most; a copy with none: 0). */
const MAX_MEMORY = 0.9;

/**
 * The share of each segment's mean γ that is not its own mark (segments in video order, `indices`
 * their positions): what the copy's encoder carried over from the segment before, and the
 * picture's own share (contentShares).
 *
 * A leak's encoder that skips blocks which barely change (P_SKIP: the block is copied from the
 * frame before) does not draw the mark's flip at a segment's start there, so those blocks keep the
 * mark of the second before: γ_k ≈ a·s_k + b·γ_(k−1) + κ. Measured on the corpus's fine moving
 * texture copied at CRF 28 (its member's stream itself reads γ = ±1.05), b reached 0.5–0.8 and a 0.3.
 * With the bits random, the least-squares slope of each γ on the one before estimates b (0 to
 * MAX_MEMORY); b·γ_(k−1) is taken away before the picture's share is estimated on what is left.
 * A segment whose predecessor was not read (the copy's first) keeps its γ as it is.
 */
export function nonMarkShares(gammas: readonly number[], indices: readonly number[]): number[] {
  const follows = (k: number) => k > 0 && indices[k] === (indices[k - 1] ?? Number.NaN) + 1;
  const mean = meanOf(gammas);
  let num = 0;
  let den = 0;
  for (let k = 1; k < gammas.length; k++)
    if (follows(k)) {
      num += ((gammas[k] ?? 0) - mean) * ((gammas[k - 1] ?? 0) - mean);
      den += ((gammas[k - 1] ?? 0) - mean) ** 2;
    }
  const memory = den > 0 ? Math.min(MAX_MEMORY, Math.max(0, num / den)) : 0;
  const carried = gammas.map((_, k) => (follows(k) ? memory * (gammas[k - 1] ?? 0) : 0));
  const picture = contentShares(gammas.map((g, k) => g - (carried[k] ?? 0)));
  return gammas.map((_, k) => (carried[k] ?? 0) + (picture[k] ?? 0));
}

/**
 * Reads every segment the aligned copy covers whole (its first and last, cut, are not read): each
 * matched frame's γ, then the segment's mean less what is not its mark (nonMarkShares).
 */
export function readSegments(ref: Reference, copy: Frames, offset: number, shape: PatternShape, geometry?: Geometry): SegmentRead[] {
  const { a, b, segmentStarts } = ref;
  const g = geometry ?? fitGeometry(ref, copy, offset);
  const fromVariants = ref.mark === 'variants';
  // The pattern's formula only for an older reference; a newer one's mark is read per frame (variantMark).
  const p = fromVariants ? null : markPattern(shape, g);
  const tx = taps(FRAME_WIDTH, g.sx, g.left);
  const ty = taps(FRAME_HEIGHT, g.sy, g.top);
  const m = new Float64Array(FRAME_PIXELS);
  const w = new Float64Array(FRAME_PIXELS);
  const shown = new Float64Array(FRAME_PIXELS);
  const scratch: [Float64Array, Float64Array] = [new Float64Array(FRAME_PIXELS), new Float64Array(FRAME_PIXELS)];
  const copyFrom = (copy.times[0] ?? 0) + offset;
  const copyTo = (copy.times[copy.count - 1] ?? 0) + offset;
  const gammas = new Map<number, number[]>();
  let s = 0;
  for (const [j, r] of matchedFrames(ref, copy, offset)) {
    const t = r / ref.rate;
    while (s + 1 < segmentStarts.length && t >= (segmentStarts[s + 1] ?? 0)) s++;
    if (s + 1 >= segmentStarts.length) break;
    if (t < (segmentStarts[s] ?? 0) + EDGE_SECONDS || t > (segmentStarts[s + 1] ?? 0) - EDGE_SECONDS) continue;
    const pr = p ?? variantMark(a.data, b.data, r, tx, ty, scratch, shown);
    // A frame where A and B no longer differ holds nothing to read (the encoder coded it afresh,
    // intra, in a smooth scene): its γ would be the fit's noise, and the segment's bit the content's.
    if (!p && meanSquare(pr) < MIN_MARK_LEVEL * MIN_MARK_LEVEL) continue;
    warpedMean(a.data, b.data, r, tx, ty, m);
    const list = gammas.get(s) ?? [];
    list.push(gammaOf(copy.data, j * FRAME_PIXELS, m, pr, edgeWeights(m, w)));
    gammas.set(s, list);
  }
  // A segment the copy covers only in part is not read.
  const covered = [...gammas]
    .filter(([index]) => copyFrom <= (segmentStarts[index] ?? 0) + EDGE_SECONDS && copyTo >= (segmentStarts[index + 1] ?? 0) - EDGE_SECONDS)
    .sort(([x], [y]) => x - y);
  const means = covered.map(([, list]) => meanOf(list));
  const content = nonMarkShares(
    means,
    covered.map(([index]) => index),
  );
  return covered.map(([index, list], k) => {
    const gamma = means[k] ?? 0;
    const kappa = content[k] ?? 0;
    const mark = gamma - kappa;
    const agreement = list.filter((v) => Math.sign(v - kappa) === Math.sign(mark)).length / list.length;
    const clear = Math.abs(mark) >= MIN_GAMMA && agreement >= 0.75;
    return { index, gamma, content: kappa, agreement, frames: list.length, bit: clear ? (mark > 0 ? 0 : 1) : null };
  });
}
