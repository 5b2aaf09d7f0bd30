/**
 * How our events map onto KurrentDB (pure functions, unit-tested without a server):
 * - a stream is a KurrentDB stream of the same name; our version v is KurrentDB revision v-1;
 * - the event id is the KurrentDB event id, the type its event type, the data its JSON data;
 * - KurrentDB metadata is `{ "meta": <our metadata>, "chain": { position, prevHash, hash, recordedAt } }`
 *   because $all positions are byte offsets (not 1..n) and the server knows nothing of our hash chain;
 * - our expected version → KurrentDB stream state: 0 / 'no_stream' → NO_STREAM, n → revision n-1.
 *   'any' and 'stream_exists' are resolved to the stream's actual revision before writing, because the
 *   version goes into the hash and must be exactly what the server stores.
 */
import { type AppendStreamState, type EventData, jsonEvent, NO_STREAM, type ResolvedEvent } from '@kurrent/kurrentdb-client';
import type { EventMetadata, RecordedEvent } from './types.js';

export interface ChainInfo {
  position: number;
  prevHash: string;
  hash: string;
  recordedAt: string;
}

export interface KurrentMetadata {
  meta: EventMetadata;
  chain: ChainInfo;
}

/** The stream state to send so that the next event gets `version` (1-based). */
export function streamStateFor(version: number): AppendStreamState {
  return version <= 1 ? NO_STREAM : BigInt(version - 2);
}

/** Our version (1-based) from a KurrentDB revision (0-based). */
export const versionOf = (revision: bigint | number) => Number(revision) + 1;

export function toEventData(e: RecordedEvent): EventData {
  const metadata: KurrentMetadata = {
    meta: e.metadata,
    chain: { position: e.position, prevHash: e.prevHash, hash: e.hash, recordedAt: e.recordedAt },
  };
  return jsonEvent({
    id: e.eventId,
    type: e.type,
    data: e.data as Record<string, unknown>,
    metadata: metadata as unknown as Record<string, unknown>,
  });
}

/** True for events this adapter wrote (others — system events, foreign writers — carry no chain). */
export function chainOf(metadata: unknown): ChainInfo | undefined {
  const m = metadata as Partial<KurrentMetadata> | undefined;
  const c = m?.chain;
  if (!c || typeof c.position !== 'number' || typeof c.hash !== 'string') return undefined;
  return c;
}

/** Our RecordedEvent from a resolved KurrentDB event, or undefined when it is not one of ours. */
export function fromResolved(r: Pick<ResolvedEvent, 'event'>): RecordedEvent | undefined {
  const e = r.event;
  if (!e?.isJson || e.type.startsWith('$')) return undefined;
  const chain = chainOf(e.metadata);
  if (!chain) return undefined;
  return {
    eventId: e.id,
    streamId: e.streamId,
    version: versionOf(e.revision),
    position: chain.position,
    type: e.type,
    data: e.data as Record<string, unknown>,
    metadata: (e.metadata as unknown as KurrentMetadata).meta,
    recordedAt: chain.recordedAt,
    prevHash: chain.prevHash,
    hash: chain.hash,
  };
}
