/**
 * The detector on synthetic frames with a known answer: a moving picture with hard edges, marked
 * A or B per 1 s segment, seen through a crop of a few pixels and a scaling back to full frame
 * (what the leak test does with ffmpeg). The crop is found, and with it the mark reads cleanly
 * where reading it as if the whole frame were kept leaves the edges' residue in every γ.
 */
import { describe, expect, it } from 'vitest';
import {
  FRAME_HEIGHT,
  FRAME_PIXELS,
  FRAME_RATE,
  FRAME_WIDTH,
  type Frames,
  fitGeometry,
  type Geometry,
  readSegments,
  WHOLE_FRAME,
} from './detect';
import { MARK_AMPLITUDE, type PatternShape } from './pattern';

const SHAPE: PatternShape = { fx: 2, fy: 2, phaseX: 1.67, phaseY: 2.09 };
const SECONDS = 40;

/** The picture at (u, v) ∈ [0,1)² and time t: a mosaic of hard-edged tiles drifting right, over a gradient. */
function picture(u: number, v: number, t: number): number {
  const col = Math.floor(u * 9 + t * 0.7);
  const row = Math.floor(v * 5 + t * 0.2);
  const tile = ((col * 73 + row * 151) % 97) / 97;
  return 30 + 170 * tile + 40 * v;
}

const mark = (u: number, v: number) =>
  MARK_AMPLITUDE * Math.cos(2 * Math.PI * SHAPE.fx * u + SHAPE.phaseX) * Math.cos(2 * Math.PI * SHAPE.fy * v + SHAPE.phaseY);

/**
 * Frames at the detector's size, each cell the mean of 6×6 samples of what `geometry` shows of
 * the marked picture (sign +1: A, −1: B, per second from `bits`).
 */
function render(geometry: Geometry, sign: (second: number) => number): Frames {
  const count = SECONDS * FRAME_RATE;
  const data = new Uint8Array(count * FRAME_PIXELS);
  const S = 6;
  for (let f = 0; f < count; f++) {
    const t = f / FRAME_RATE;
    const s = sign(Math.floor(t));
    for (let y = 0; y < FRAME_HEIGHT; y++)
      for (let x = 0; x < FRAME_WIDTH; x++) {
        let sum = 0;
        for (let j = 0; j < S; j++)
          for (let i = 0; i < S; i++) {
            const u = (geometry.left + (x + (i + 0.5) / S) * geometry.sx) / FRAME_WIDTH;
            const v = (geometry.top + (y + (j + 0.5) / S) * geometry.sy) / FRAME_HEIGHT;
            sum += picture(u, v, t) + s * mark(u, v);
          }
        data[f * FRAME_PIXELS + y * FRAME_WIDTH + x] = Math.round(sum / (S * S));
      }
  }
  return { data, count };
}

describe('reading the mark through a crop', () => {
  const bits = Array.from({ length: SECONDS }, (_, i) => ((i * 7 + (i >> 2)) % 3 === 0 ? 1 : 0));
  const a = render(WHOLE_FRAME, () => 1);
  const b = render(WHOLE_FRAME, () => -1);
  const starts = Array.from({ length: SECONDS + 1 }, (_, i) => i);
  // 3 px of 320 cut on the left, 2 of 180 at the top, 6 and 4 in all, scaled back up (the leak test's crop).
  const cropped: Geometry = { sx: 314 / 320, left: (3 / 320) * FRAME_WIDTH, sy: 176 / 180, top: (2 / 180) * FRAME_HEIGHT };
  const copy = render(cropped, (second) => (bits[second] === 1 ? -1 : 1));

  const error = (reads: ReturnType<typeof readSegments>) =>
    reads.reduce((s, r) => s + Math.abs(r.gamma - (bits[r.index] === 1 ? -1 : 1)), 0) / reads.length;

  it('finds the crop to a tenth of a cell', () => {
    const g = fitGeometry(a, b, copy, 0);
    expect(g.sx).toBeCloseTo(cropped.sx, 2);
    expect(g.sy).toBeCloseTo(cropped.sy, 2);
    expect(Math.abs(g.left - cropped.left)).toBeLessThan(0.15);
    expect(Math.abs(g.top - cropped.top)).toBeLessThan(0.15);
  });

  it('keeps the whole frame for a copy that kept it', () => {
    const whole = render(WHOLE_FRAME, (second) => (bits[second] === 1 ? -1 : 1));
    expect(fitGeometry(a, b, whole, 0)).toEqual(WHOLE_FRAME);
  });

  it('with the crop found every bit reads, γ within 0.1 of ±1 on average', () => {
    const fitted = readSegments(a, b, copy, 0, starts, SHAPE);
    expect(fitted.map((r) => r.bit)).toEqual(bits);
    expect(error(fitted)).toBeLessThan(0.1);
  });

  it('a crop of 5 % each way: found, every bit read; read as if the whole frame were kept, the edges misread bits', () => {
    const heavy: Geometry = { sx: 0.95, left: 0.02 * FRAME_WIDTH, sy: 0.95, top: 0.03 * FRAME_HEIGHT };
    const copy5 = render(heavy, (second) => (bits[second] === 1 ? -1 : 1));
    const g = fitGeometry(a, b, copy5, 0);
    expect(Math.abs(g.sx - heavy.sx)).toBeLessThan(0.005);
    expect(Math.abs(g.left - heavy.left)).toBeLessThan(0.15);
    const fitted = readSegments(a, b, copy5, 0, starts, SHAPE);
    expect(fitted.map((r) => r.bit)).toEqual(bits);
    expect(error(fitted)).toBeLessThan(0.1);
    const naive = readSegments(a, b, copy5, 0, starts, SHAPE, WHOLE_FRAME);
    expect(naive.filter((r) => r.bit !== bits[r.index]).length).toBeGreaterThan(5);
  });
});
