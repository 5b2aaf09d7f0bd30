/**
 * Identifying the member behind a leaked copy (docs/leak-tracing.md): decode the copy to small
 * gray frames, find its video (given, or the marked video whose frames it matches best) and its
 * place in it, read one bit per segment it covers, and apply code.ts's rule against every live
 * member's code. Never names a member outside the rule's bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { transcodedVideoIds } from '../catalog/index.js';
import { findUserById } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Candidate, codeBits, minimumBits, verdict } from './code.js';
import {
  align,
  type Frames,
  fitGeometry,
  type Geometry,
  geometricScore,
  type Reference,
  readSegments,
  refineOffset,
  type SegmentRead,
  WHOLE_FRAME,
} from './detect.js';
import { framesOf, grayFrames } from './frames.js';
import { liveCodeSecrets } from './memberCodes.js';
import { MARKED_SEGMENT_SECONDS, patternShape } from './pattern.js';

/** Mean frame correlation below which a copy is not taken to be (this part of) a video. */
export const MIN_ALIGNMENT = 0.9;
/**
 * Whole-frame correlation below which a copy's crop is not looked for: no crop of 80–100 % of each
 * axis lifts a copy of another video to MIN_ALIGNMENT from there (a cropped copy of this video
 * scores 0.84 and more before its crop is found).
 */
const CROP_SEARCH_FLOOR = 0.7;

export type Identification =
  | {
      kind: 'identified';
      videoId: string;
      memberId: string;
      /** null: the member has been erased since (their e-mail is gone). */
      email: string | null;
      bits: number;
      distance: number;
      /** The bound on this being a false match (code.ts). */
      bound: number;
      stretch: { from: number; to: number };
    }
  | { kind: 'no-match'; videoId: string | null; bits: number; stretch: { from: number; to: number } | null }
  | { kind: 'too-short'; videoId: string | null; bits: number; neededSeconds: number };

interface StoredReference extends Reference {
  videoId: string;
  mean: Frames;
}

/** What `ref.json` holds (transcode/watermarkVariants.ts `MarkedReference`; references before issue 41 lack `sourceFrameRate`). */
interface ReferenceMeta {
  frameRate?: number;
  sourceFrameRate?: number;
  segmentStarts: number[];
  /** 'variants' when B is A with B's keyframe (references before the keyframe splice lack it). */
  mark?: 'variants';
}

async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** A reference from what the transcoder stored: `ref.json`'s text and the A and B frames. */
export function referenceOf(videoId: string, meta: string, aBytes: Uint8Array, bBytes: Uint8Array): StoredReference {
  const info = JSON.parse(meta) as ReferenceMeta;
  const rate = info.frameRate ?? 5;
  const a = framesOf(aBytes, rate);
  const b = framesOf(bBytes, rate);
  const data = new Uint8Array(a.data.length);
  for (let i = 0; i < a.data.length; i++) data[i] = ((a.data[i] ?? 0) + (b.data[i] ?? 0)) >> 1;
  const mean = { data, count: a.count, times: a.times };
  return {
    videoId,
    a,
    b,
    mean,
    rate,
    sourceRate: info.sourceFrameRate ?? null,
    segmentStarts: info.segmentStarts,
    ...(info.mark === 'variants' && { mark: 'variants' as const }),
  };
}

async function loadReference(ctx: Pick<AppContext, 'media'>, videoId: string): Promise<StoredReference | null> {
  const storage = ctx.media;
  const base = `videos/${videoId}/hls/watermark`;
  const meta = await storage.readText(`${base}/ref.json`).catch(() => null);
  if (!meta) return null;
  return referenceOf(
    videoId,
    meta,
    await readAll(await storage.openRead(`${base}/ref-a.gray`)),
    await readAll(await storage.openRead(`${base}/ref-b.gray`)),
  );
}

/** The reference a transcode left in a local folder (`{ladder}/watermark`): for the bench and tests. */
export function storedReference(ladderDir: string, videoId: string): StoredReference {
  const dir = path.join(ladderDir, 'watermark');
  return referenceOf(
    videoId,
    fs.readFileSync(path.join(dir, 'ref.json'), 'utf8'),
    new Uint8Array(fs.readFileSync(path.join(dir, 'ref-a.gray'))),
    new Uint8Array(fs.readFileSync(path.join(dir, 'ref-b.gray'))),
  );
}

/**
 * Where a copy sits in one video: its place (align), its crop and scaling (fitGeometry), its place
 * again through that crop (refineOffset) and how well it matches once both are known
 * (geometricScore, or the whole-frame score when that is higher).
 */
export function locateCopy(ref: StoredReference, copy: Frames): { offset: number; score: number; geometry: Geometry } | null {
  const at = align(ref.mean, ref.rate, copy, ref.sourceRate);
  if (!at) return null;
  if (at.score < CROP_SEARCH_FLOOR) return { ...at, geometry: WHOLE_FRAME };
  const first = fitGeometry(ref, copy, at.offset);
  const offset = refineOffset(ref, copy, at.offset, first);
  const geometry = offset === at.offset ? first : fitGeometry(ref, copy, offset);
  return { offset, geometry, score: Math.max(at.score, geometricScore(ref, copy, offset, geometry)) };
}

/** A copy read against one reference: where it sits, how well it matches, and every segment it covers. */
export async function readCopy(
  ref: StoredReference,
  file: string | Frames,
): Promise<{ offset: number; score: number; reads: SegmentRead[] }> {
  const copy = typeof file === 'string' ? await grayFrames(file) : file;
  const at = locateCopy(ref, copy);
  if (!at) return { offset: 0, score: -1, reads: [] };
  return { offset: at.offset, score: at.score, reads: readSegments(ref, copy, at.offset, patternShape(ref.videoId), at.geometry) };
}

/** The copy's shortest length that can name anyone, seconds (whole segments plus the partial ones at its ends). */
export const neededSeconds = () => minimumBits() * MARKED_SEGMENT_SECONDS + 2;

export async function identifyCopy(
  ctx: Pick<AppContext, 'env' | 'db' | 'media'>,
  file: string,
  opts: { videoId?: string } = {},
): Promise<Identification> {
  const copy = await grayFrames(file);
  const ids = opts.videoId ? [opts.videoId] : await transcodedVideoIds(ctx.db);
  let best: { ref: StoredReference; offset: number; score: number; geometry: Geometry } | null = null;
  for (const id of ids) {
    const ref = await loadReference(ctx, id);
    if (!ref) continue;
    const at = locateCopy(ref, copy);
    if (at && (!best || at.score > best.score)) best = { ref, ...at };
  }
  if (!best || best.score < MIN_ALIGNMENT) return { kind: 'no-match', videoId: opts.videoId ?? null, bits: 0, stretch: null };
  const { ref, offset, geometry } = best;
  const j = await judgeCopy(ref, readSegments(ref, copy, offset, patternShape(ref.videoId), geometry), () => liveCodeSecrets(ctx));
  const videoId = ref.videoId;
  if (j.kind === 'too-short') return { kind: 'too-short', videoId, bits: j.bits, neededSeconds: neededSeconds() };
  if (j.kind === 'no-match') return { ...j, videoId };
  const user = await findUserById(ctx.db, j.memberId);
  return { ...j, videoId, email: user?.email ?? null };
}

export type Judgement =
  | { kind: 'too-short'; bits: number }
  | { kind: 'no-match'; bits: number; stretch: { from: number; to: number } | null }
  | { kind: 'identified'; memberId: string; bits: number; distance: number; bound: number; stretch: { from: number; to: number } };

/**
 * The rule over the segments read from an aligned copy: too short when it covers fewer whole
 * segments than any verdict needs; no match when none reads clearly (no mark) or no code is close
 * enough; else the closest code within code.ts's bound. `codes` is asked only when it matters.
 */
export async function judgeCopy(
  ref: Pick<Reference, 'segmentStarts'> & { videoId: string },
  covered: SegmentRead[],
  codes: () => Promise<Array<{ memberId: string; secret: Buffer }>>,
): Promise<Judgement> {
  const reads = covered.filter((r) => r.bit !== null);
  if (covered.length < minimumBits()) return { kind: 'too-short', bits: reads.length };
  if (reads.length === 0) return { kind: 'no-match', bits: 0, stretch: null };
  const first = reads[0]?.index ?? 0;
  const last = reads[reads.length - 1]?.index ?? 0;
  const stretch = { from: ref.segmentStarts[first] ?? 0, to: ref.segmentStarts[last + 1] ?? 0 };
  const candidates: Candidate[] = (await codes()).map((m) => {
    const bits = codeBits(m.secret, ref.videoId, first, last - first + 1);
    let distance = 0;
    for (const r of reads) if (bits[r.index - first] !== r.bit) distance++;
    return { memberId: m.memberId, distance };
  });
  const v = verdict(reads.length, candidates);
  if (v.kind !== 'identified') return { kind: 'no-match', bits: v.bits, stretch };
  return { kind: 'identified', memberId: v.memberId, bits: v.bits, distance: v.distance, bound: v.bound, stretch };
}

/** What the CLI and the admin route print. */
export function describeIdentification(r: Identification): string {
  if (r.kind === 'too-short') return `too short: needs at least ${r.neededSeconds} s`;
  if (r.kind === 'no-match') return 'no match';
  const who = r.email ? `${r.memberId} <${r.email}>` : `${r.memberId} (an erased member)`;
  return `member ${who} in video ${r.videoId}: ${r.bits} segments read from ${r.stretch.from.toFixed(0)} s to ${r.stretch.to.toFixed(0)} s, ${r.distance} differing, false-match bound ${r.bound.toExponential(1)} over ${'100,000'} members`;
}
