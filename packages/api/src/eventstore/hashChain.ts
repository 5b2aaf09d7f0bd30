/**
 * The tamper-evident hash chain over the global log.
 *
 *   hash(n) = SHA-256( hash(n-1) ‖ canonicalJson({ type, data, metadata, stream, version, position }) )
 *
 * hash(0) is 64 zeros; ‖ is string concatenation of the lower-case hex of the previous hash and the
 * canonical JSON (UTF-8). Canonical JSON: object keys sorted by UTF-16 code unit order, no whitespace,
 * `undefined` members dropped, numbers and strings as JSON.stringify writes them.
 */
import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export interface HashableEvent {
  type: string;
  data: unknown;
  metadata: unknown;
  streamId: string;
  version: number;
  position: number;
}

export function eventHash(prevHash: string, e: HashableEvent): string {
  const body = canonicalJson({
    type: e.type,
    data: e.data,
    metadata: e.metadata,
    stream: e.streamId,
    version: e.version,
    position: e.position,
  });
  return createHash('sha256').update(prevHash).update(body).digest('hex');
}

/**
 * Turns new events into recorded ones chained onto the head of the log: the one place every adapter
 * assigns positions, versions and hashes, so they all write the same chain.
 */
export function chainEvents(
  events: { type: string; data: Record<string, unknown> }[],
  at: {
    streamId: string;
    baseVersion: number;
    headPosition: number;
    headHash: string;
    metadata: Record<string, unknown>;
    recordedAt: string;
  },
  newId: () => string,
): {
  eventId: string;
  streamId: string;
  version: number;
  position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recordedAt: string;
  prevHash: string;
  hash: string;
}[] {
  let position = at.headPosition;
  let prevHash = at.headHash;
  return events.map((e, i) => {
    position += 1;
    const version = at.baseVersion + i + 1;
    const metadata = { ...at.metadata };
    const hash = eventHash(prevHash, { type: e.type, data: e.data, metadata, streamId: at.streamId, version, position });
    const rec = {
      eventId: newId(),
      streamId: at.streamId,
      version,
      position,
      type: e.type,
      data: e.data,
      metadata,
      recordedAt: at.recordedAt,
      prevHash,
      hash,
    };
    prevHash = hash;
    return rec;
  });
}
