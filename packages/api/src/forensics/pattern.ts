/**
 * The mark itself (pure): a smooth luminance pattern of a few cells across the picture, the same
 * for every rendition of a video (scaled to its size) and chosen per video from its id. Variant A
 * adds it, variant B subtracts it (ffmpeg `blend` grainmerge / grainextract against a mid-gray
 * frame carrying it, drawn by `geq` once a second inside the ladder's filter graph, transcode/ladder.ts), so A and B differ by twice the pattern, at most
 * 2×MARK_AMPLITUDE levels of luma and none of colour.
 *
 * Low spatial frequency (1–3 periods across, 1–2 down) is what survives a scaling to 640×360,
 * a re-encode at CRF 28 and a crop of a few pixels: codecs keep a block's mean best of all.
 * MARK_AMPLITUDE 1.5 (rounded to whole levels, ±2 at the peaks): the mark alone is 44.6 dB PSNR A
 * against B. B is then served as A with B's keyframe (transcode/keyframeSplice.ts), so two members'
 * streams differ by the mark carried from the keyframe, not by two encodes' drift (≥ 42 dB on the
 * corpus's grain and dark motion: leakCorpus.int.test.ts, forensics.int.test.ts on the test card).
 */
import { createHash } from 'node:crypto';

export const MARK_AMPLITUDE = 1.5;
/** Segment length of a marked ladder, seconds: one bit per segment (docs/leak-tracing.md). */
export const MARKED_SEGMENT_SECONDS = 1;

export interface PatternShape {
  fx: number;
  fy: number;
  phaseX: number;
  phaseY: number;
}

/** The pattern's shape for one video (deterministic: the same at every transcode of it). */
export function patternShape(videoId: string): PatternShape {
  const h = createHash('sha256').update(`forensic-pattern v1:${videoId}`).digest();
  const pick = (i: number) => (h[i] ?? 0) / 256;
  return {
    fx: [1.5, 2, 2.5, 3][(h[0] ?? 0) % 4] as number,
    fy: [1, 1.5, 2][(h[1] ?? 0) % 3] as number,
    phaseX: pick(2) * 2 * Math.PI,
    phaseY: pick(3) * 2 * Math.PI,
  };
}

/**
 * The pattern as ffmpeg `geq` luma: 128 + the pattern rounded to whole levels (grainmerge adds
 * `value − 128`, grainextract takes it away), of the pixel (X, Y) in a W×H picture.
 * @example patternExpression({ fx: 2, fy: 1, phaseX: 0, phaseY: 0 }) // '128+round(1.5*cos(2*PI*2*(X+0.5)/W+0)*cos(2*PI*1*(Y+0.5)/H+0))'
 */
export function patternExpression(shape: PatternShape, amplitude = MARK_AMPLITUDE): string {
  const phase = (v: number) => Number(v.toFixed(4));
  return `128+round(${amplitude}*cos(2*PI*${shape.fx}*(X+0.5)/W+${phase(shape.phaseX)})*cos(2*PI*${shape.fy}*(Y+0.5)/H+${phase(shape.phaseY)}))`;
}
