/**
 * Tamper evidence: walks the whole log in position order (streaming, constant memory) and recomputes
 * the hash chain, reporting the first position where the stored log no longer matches.
 *
 * The chain (see eventstore/hashChain.ts), re-implementable from this comment alone:
 *
 *   hash(0) = "0000…0000" (64 zeros)
 *   hash(n) = lowercase hex SHA-256 of the UTF-8 bytes of
 *             hash(n-1) + canonicalJson({ type, data, metadata, stream, version, position })
 *
 * where `stream` is the stream id, `version` the 1-based version inside the stream and `position` the
 * 1-based global position. Canonical JSON: no whitespace; object keys sorted by UTF-16 code units
 * (JavaScript's default sort); members whose value is `undefined` dropped; strings, numbers, booleans
 * and null written as JSON.stringify writes them. Every event stores `prev_hash` = hash(n-1) and
 * `hash` = hash(n).
 *
 * What a break means:
 * - `gap`: position n is missing (a deleted row) — positions are 1..head with no holes.
 * - `prev_hash`: the stored prev_hash is not the hash of the event before (a row removed or
 *   inserted with its neighbours' hashes patched, or a swapped row).
 * - `hash`: the event's content (type, data, metadata, stream, version or position) no longer
 *   hashes to its stored hash (an edited row, or two rows swapped).
 * - `unreadable`: the store could not even decode the event (say, data is no longer JSON).
 * Truncating the tail leaves a valid shorter chain: a signed checkpoint (checkpoint.ts) catches that.
 */
import { eventHash, GENESIS_HASH } from '../eventstore/hashChain.js';
import type { EventStore, RecordedEvent } from '../eventstore/types.js';

export type ChainBreakKind = 'gap' | 'prev_hash' | 'hash' | 'unreadable' | 'checkpoint';

export interface ChainBreak {
  /** The first position that does not verify. */
  position: number;
  kind: ChainBreakKind;
  message: string;
  expected?: string;
  actual?: string;
}

export type VerifyResult =
  | { ok: true; events: number; headPosition: number; headHash: string }
  | { ok: false; events: number; break: ChainBreak };

export interface VerifyOptions {
  batchSize?: number;
  /** Also require that the log holds exactly this hash at this position (a signed checkpoint). */
  expect?: { position: number; hash: string };
  /** Called every `progressEvery` events (default 10,000) with the last verified position. */
  onProgress?: (position: number) => void;
  progressEvery?: number;
}

/** Checks one event against the hash of the event before it; undefined when it verifies. */
export function checkEvent(e: RecordedEvent, expectedPosition: number, prevHash: string): ChainBreak | undefined {
  if (e.position !== expectedPosition) {
    const kind: ChainBreakKind = e.position > expectedPosition ? 'gap' : 'hash';
    return {
      position: expectedPosition,
      kind,
      message:
        kind === 'gap'
          ? `position ${expectedPosition} is missing (next stored event is at ${e.position})`
          : `position ${e.position} appears out of order where ${expectedPosition} was expected`,
      expected: String(expectedPosition),
      actual: String(e.position),
    };
  }
  if (e.prevHash !== prevHash) {
    return {
      position: e.position,
      kind: 'prev_hash',
      message: `event at position ${e.position} does not chain onto the event before it`,
      expected: prevHash,
      actual: e.prevHash,
    };
  }
  const recomputed = eventHash(prevHash, e);
  if (recomputed !== e.hash) {
    return {
      position: e.position,
      kind: 'hash',
      message: `event at position ${e.position} (${e.type} on ${e.streamId}) was changed after it was written`,
      expected: e.hash,
      actual: recomputed,
    };
  }
  return undefined;
}

/**
 * Verifies the whole chain from position 1.
 * @example
 *   const r = await verifyChain(store);
 *   if (!r.ok) console.error(`broken at ${r.break.position}: ${r.break.message}`);
 */
export async function verifyChain(store: EventStore, opts: VerifyOptions = {}): Promise<VerifyResult> {
  let prevHash = GENESIS_HASH;
  let position = 0;
  const every = opts.progressEvery ?? 10_000;
  try {
    for await (const e of store.streamAll({ batchSize: opts.batchSize ?? 1000 })) {
      const broken = checkEvent(e, position + 1, prevHash);
      if (broken) return { ok: false, events: position, break: broken };
      position = e.position;
      prevHash = e.hash;
      if (opts.expect && position === opts.expect.position && prevHash !== opts.expect.hash) {
        return { ok: false, events: position, break: checkpointBreak(opts.expect, prevHash) };
      }
      if (opts.onProgress && position % every === 0) opts.onProgress(position);
    }
  } catch (err) {
    // A page failed to decode: step through it one event at a time to name the bad position.
    return pinpointUnreadable(store, position, prevHash, err);
  }
  if (opts.expect && opts.expect.position > position) {
    return {
      ok: false,
      events: position,
      break: {
        position: opts.expect.position,
        kind: 'checkpoint',
        message: `the log ends at ${position} but a checkpoint says it reached ${opts.expect.position} (truncated)`,
      },
    };
  }
  return { ok: true, events: position, headPosition: position, headHash: prevHash };
}

async function pinpointUnreadable(store: EventStore, from: number, fromHash: string, firstErr: unknown): Promise<VerifyResult> {
  let position = from;
  let prevHash = fromHash;
  let err = firstErr;
  for (;;) {
    let next: RecordedEvent | undefined;
    try {
      [next] = await store.readAll({ after: position, limit: 1 });
    } catch (e) {
      err = e;
      break;
    }
    if (!next) break;
    const broken = checkEvent(next, position + 1, prevHash);
    if (broken) return { ok: false, events: position, break: broken };
    position = next.position;
    prevHash = next.hash;
  }
  return {
    ok: false,
    events: position,
    break: {
      position: position + 1,
      kind: 'unreadable',
      message: `event at position ${position + 1} cannot be read: ${(err as Error).message}`,
    },
  };
}

function checkpointBreak(expect: { position: number; hash: string }, actual: string): ChainBreak {
  return {
    position: expect.position,
    kind: 'checkpoint',
    message: `the hash at position ${expect.position} differs from the signed checkpoint (history rewritten)`,
    expected: expect.hash,
    actual,
  };
}

/** One line for people: `OK: 12000 events, head 12000 abcd…` or `BROKEN at position 42 (hash): …`. */
export function describeVerify(r: VerifyResult): string {
  if (r.ok) return `OK: ${r.events} events verified, head position ${r.headPosition}, head hash ${r.headHash}`;
  const b = r.break;
  const detail = b.expected !== undefined ? ` (expected ${b.expected}, found ${b.actual})` : '';
  return `BROKEN at position ${b.position} [${b.kind}]: ${b.message}${detail}`;
}
