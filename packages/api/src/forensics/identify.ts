/**
 * Identifying the member behind a leaked copy (docs/leak-tracing.md): decode the copy to small
 * gray frames, find its video (given, or the marked video whose frames it matches best) and its
 * place in it, read one bit per segment it covers, and apply code.ts's rule against every live
 * member's code. Never names a member outside the rule's bound.
 */
import type { Readable } from 'node:stream';
import { transcodedVideoIds } from '../catalog/index.js';
import { findUserById } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Candidate, codeBits, minimumBits, verdict } from './code.js';
import { align, type Frames, framesOf, readSegments } from './detect.js';
import { grayFrames } from './frames.js';
import { liveCodeSecrets } from './memberCodes.js';
import { MARKED_SEGMENT_SECONDS, patternShape } from './pattern.js';

/** Mean frame correlation below which a copy is not taken to be (this part of) a video. */
export const MIN_ALIGNMENT = 0.9;

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

interface Reference {
  videoId: string;
  a: Frames;
  b: Frames;
  mean: Frames;
  segmentStarts: number[];
}

async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

async function loadReference(ctx: Pick<AppContext, 'media'>, videoId: string): Promise<Reference | null> {
  const storage = ctx.media;
  const base = `videos/${videoId}/hls/watermark`;
  const meta = await storage.readText(`${base}/ref.json`).catch(() => null);
  if (!meta) return null;
  const a = framesOf(await readAll(await storage.openRead(`${base}/ref-a.gray`)));
  const b = framesOf(await readAll(await storage.openRead(`${base}/ref-b.gray`)));
  const mean = { data: new Uint8Array(a.data.length), count: a.count };
  for (let i = 0; i < a.data.length; i++) mean.data[i] = ((a.data[i] ?? 0) + (b.data[i] ?? 0)) >> 1;
  return { videoId, a, b, mean, segmentStarts: (JSON.parse(meta) as { segmentStarts: number[] }).segmentStarts };
}

/** The copy's shortest length that can name anyone, seconds (whole segments plus the partial ones at its ends). */
export const neededSeconds = () => minimumBits() * MARKED_SEGMENT_SECONDS + 2;

export async function identifyCopy(
  ctx: Pick<AppContext, 'env' | 'db' | 'media'>,
  file: string,
  opts: { videoId?: string } = {},
): Promise<Identification> {
  const copy = framesOf(await grayFrames(file));
  const ids = opts.videoId ? [opts.videoId] : await transcodedVideoIds(ctx.db);
  let best: { ref: Reference; offset: number; score: number } | null = null;
  for (const id of ids) {
    const ref = await loadReference(ctx, id);
    if (!ref) continue;
    const a = align(ref.mean, copy);
    if (a && (!best || a.score > best.score)) best = { ref, offset: a.offset, score: a.score };
  }
  if (!best || best.score < MIN_ALIGNMENT) return { kind: 'no-match', videoId: opts.videoId ?? null, bits: 0, stretch: null };
  const { ref, offset } = best;
  const covered = readSegments(ref.a, ref.b, copy, offset, ref.segmentStarts, patternShape(ref.videoId));
  const reads = covered.filter((r) => r.bit !== null);
  const videoId = ref.videoId;
  // Too short: fewer whole segments than any verdict needs. Long enough but unreadable: no mark, no match.
  if (covered.length < minimumBits()) return { kind: 'too-short', videoId, bits: reads.length, neededSeconds: neededSeconds() };
  if (reads.length === 0) return { kind: 'no-match', videoId, bits: 0, stretch: null };
  const first = reads[0]?.index ?? 0;
  const last = reads[reads.length - 1]?.index ?? 0;
  const stretch = { from: ref.segmentStarts[first] ?? 0, to: ref.segmentStarts[last + 1] ?? 0 };
  const members = await liveCodeSecrets(ctx);
  const candidates: Candidate[] = members.map((m) => {
    const bits = codeBits(m.secret, videoId, first, last - first + 1);
    let distance = 0;
    for (const r of reads) if (bits[r.index - first] !== r.bit) distance++;
    return { memberId: m.memberId, distance };
  });
  const v = verdict(reads.length, candidates);
  if (v.kind !== 'identified') return { kind: 'no-match', videoId, bits: v.bits, stretch };
  const user = await findUserById(ctx.db, v.memberId);
  return {
    kind: 'identified',
    videoId,
    memberId: v.memberId,
    email: user?.email ?? null,
    bits: v.bits,
    distance: v.distance,
    bound: v.bound,
    stretch,
  };
}

/** What the CLI and the admin route print. */
export function describeIdentification(r: Identification): string {
  if (r.kind === 'too-short') return `too short: needs at least ${r.neededSeconds} s`;
  if (r.kind === 'no-match') return 'no match';
  const who = r.email ? `${r.memberId} <${r.email}>` : `${r.memberId} (an erased member)`;
  return `member ${who} in video ${r.videoId}: ${r.bits} segments read from ${r.stretch.from.toFixed(0)} s to ${r.stretch.to.toFixed(0)} s, ${r.distance} differing, false-match bound ${r.bound.toExponential(1)} over ${'100,000'} members`;
}
