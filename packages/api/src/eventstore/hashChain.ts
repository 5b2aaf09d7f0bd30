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
