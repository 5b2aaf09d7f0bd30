/**
 * Each member's code and the rule that names a member from the bits read out of a copy (pure).
 *
 * A member's code is a pseudonym derived from their data key (privacy/dataKeys.ts): the secret
 * `HMAC-SHA256(dataKey, "forensic-watermark code v1")`, and from it, per video, one bit per segment
 * position: bit i of `HMAC-SHA256(secret, "{videoId}:{⌊i/256⌋}")`. Nothing is stored: erasing the
 * member destroys the data key and with it every way to link a copy to them (crypto-shredding).
 * Every stretch of every video reads a fresh, independent window of the code, so a copy from
 * anywhere in the video identifies as well as one from the start.
 *
 * Matching (maximum likelihood with a bound): the copy yields L clear bits; for each member the
 * number of positions where their bits differ is counted; the closest member is named only when
 * that count d is within `allowedErrors(L)`: the largest d for which
 *
 *     N · Σ_{k ≤ d} C(L, k) / 2^L  ≤  FALSE_MATCH_TARGET      (N = max(members, 100 000))
 *
 * — the union bound, over N members, of the chance that bits independent of a member's code
 * (an unmarked copy, another member's copy) fall within d of it. The code is a random code: its
 * error correction is this distance rule, more errors are forgiven the longer the copy.
 */
import { createHmac } from 'node:crypto';

export const FALSE_MATCH_TARGET = 1e-6;
export const MEMBERS_BOUND = 100_000;

/** The member's code secret, from their data key. */
export const codeSecret = (dataKey: Buffer): Buffer => createHmac('sha256', dataKey).update('forensic-watermark code v1').digest();

/** Bits `from … from+count-1` of the member's code for one video (0: variant A, 1: variant B). */
export function codeBits(secret: Buffer, videoId: string, from: number, count: number): Uint8Array {
  const out = new Uint8Array(count);
  let block = -1;
  let bytes: Buffer = Buffer.alloc(32);
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const b = Math.floor(i / 256);
    if (b !== block) {
      block = b;
      bytes = createHmac('sha256', secret).update(`${videoId}:${b}`).digest();
    }
    out[k] = ((bytes[(i % 256) >> 3] ?? 0) >> (i % 8)) & 1;
  }
  return out;
}

function log2Binomial(n: number, k: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += Math.log2(n - i) - Math.log2(i + 1);
  return s;
}

/** N · Σ_{k ≤ d} C(L, k) / 2^L: the bound on naming a member wrongly with L bits and d errors allowed. */
export function falseMatchBound(bits: number, errors: number, members = MEMBERS_BOUND): number {
  let sum = 0;
  for (let k = 0; k <= errors; k++) sum += 2 ** (log2Binomial(bits, k) - bits);
  return Math.max(members, MEMBERS_BOUND) * sum;
}

/** The most differing bits a match may have with `bits` clear bits read, or null when too few bits to name anyone. */
export function allowedErrors(bits: number, members = MEMBERS_BOUND): number | null {
  let d: number | null = null;
  for (let k = 0; k <= bits / 4; k++) {
    if (falseMatchBound(bits, k, members) <= FALSE_MATCH_TARGET) d = k;
    else break;
  }
  return d;
}

/** The fewest clear bits that can name a member. */
export function minimumBits(members = MEMBERS_BOUND): number {
  let bits = 1;
  while (allowedErrors(bits, members) === null) bits++;
  return bits;
}

export interface Candidate {
  memberId: string;
  /** Differing bits over the positions read. */
  distance: number;
}

export type Verdict =
  | { kind: 'identified'; memberId: string; bits: number; distance: number; bound: number }
  | { kind: 'no-match'; bits: number; bestDistance: number | null }
  | { kind: 'too-short'; bits: number; neededBits: number };

/** The matching rule over every member's distance (see the module comment). */
export function verdict(bits: number, candidates: Candidate[], members = candidates.length): Verdict {
  const allowed = allowedErrors(bits, members);
  if (allowed === null) return { kind: 'too-short', bits, neededBits: minimumBits(members) };
  let best: Candidate | null = null;
  for (const c of candidates) if (!best || c.distance < best.distance) best = c;
  if (!best || best.distance > allowed) return { kind: 'no-match', bits, bestDistance: best?.distance ?? null };
  return {
    kind: 'identified',
    memberId: best.memberId,
    bits,
    distance: best.distance,
    bound: falseMatchBound(bits, best.distance, members),
  };
}
