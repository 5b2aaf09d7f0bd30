/**
 * The event store over KurrentDB (the successor of EventStoreDB) through @kurrent/kurrentdb-client.
 * Streams map to streams, expected version to expected revision, `readAll` pages over `$all`
 * (system events and foreign events filtered out), and a catch-up subscription to `$all` tells
 * `onAppended` listeners about events other processes append. See kurrentMapping.ts for the
 * mapping and why our global position and hash chain travel in each event's metadata.
 *
 * Limitation: positions are assigned by reading the head under an in-process lock, so one process
 * writes at a time (like the embedded SQLite store); a second concurrent writer process could
 * assign a position twice, which `audit verify` would then report.
 */

import { randomUUID } from 'node:crypto';
import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  excludeSystemEvents,
  FORWARDS,
  KurrentDBClient,
  type Position,
  type ResolvedEvent,
  START,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { Mutex } from '../shared/mutex.js';
import { chainEvents, GENESIS_HASH } from './hashChain.js';
import { chainOf, fromResolved, streamStateFor, toEventData, versionOf } from './kurrentMapping.js';
import { ChainContinuityError } from './sqlAppendRecorded.js';
import { ConcurrencyError, type EventStore, type ExpectedVersion, type RecordedEvent } from './types.js';

export interface KurrentEventStore extends EventStore {
  /** Writes already-recorded events as they are (for `store copy`). */
  appendRecorded(events: RecordedEvent[]): Promise<void>;
}

/** Remembers where in $all some of our positions are, so paging need not rescan from the start. */
const INDEX_EVERY = 1000;

export interface KurrentStoreOptions {
  now?: () => Date;
  /**
   * Keeps this store's streams under `{namespace}.` so several logical stores (say, one per test)
   * share a server: $all reads are filtered to the prefix and the positions count within it.
   */
  namespace?: string;
  /** A client to use instead of connecting (tests pass an in-memory fake). */
  client?: KurrentClientLike;
}

/** The part of KurrentDBClient this adapter uses. */
export type KurrentClientLike = Pick<KurrentDBClient, 'appendToStream' | 'readAll' | 'readStream' | 'subscribeToAll' | 'dispose'>;

/**
 * How this store reads a KurrentDB server: its streams under the namespace prefix, our events out of
 * `$all` (foreign and system events skipped), the head of our hash chain, a stream's version, and
 * `$all` paged from a position (through an index of where some of our positions are).
 */
function kurrentReads(client: KurrentClientLike, prefix: string) {
  const name = (streamId: string) => `${prefix}${streamId}`;
  const allFilter = () => (prefix ? streamNameFilter({ prefixes: [prefix] }) : excludeSystemEvents());
  const ours = (r: Pick<ResolvedEvent, 'event'>): RecordedEvent | undefined => {
    const e = fromResolved(r);
    if (!e?.streamId.startsWith(prefix)) return undefined;
    return prefix ? { ...e, streamId: e.streamId.slice(prefix.length) } : e;
  };
  const index = new Map<number, Position>();

  function remember(position: number, at: Position | undefined): void {
    if (at && (position % INDEX_EVERY === 0 || position === 1)) index.set(position, at);
  }

  async function head(): Promise<{ position: number; hash: string }> {
    for await (const r of client.readAll({ direction: BACKWARDS, fromPosition: END, filter: allFilter() })) {
      const chain = r.event?.streamId.startsWith(prefix) ? chainOf(r.event.metadata) : undefined;
      if (chain) return { position: chain.position, hash: chain.hash };
    }
    return { position: 0, hash: GENESIS_HASH };
  }

  async function streamVersion(streamId: string): Promise<number> {
    try {
      for await (const r of client.readStream(name(streamId), { direction: BACKWARDS, fromRevision: END, maxCount: 1 }))
        if (r.event) return versionOf(r.event.revision);
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
    return 0;
  }

  async function* pages(after: number): AsyncGenerator<RecordedEvent> {
    let from: Position | typeof START = START;
    let best = 0;
    for (const [p, at] of index) if (p <= after + 1 && p > best) [best, from] = [p, at];
    const iter = client.readAll({ direction: FORWARDS, fromPosition: from, filter: allFilter() }) as AsyncIterable<AllStreamResolvedEvent>;
    for await (const r of iter) {
      const e = ours(r);
      if (!e) continue;
      remember(e.position, r.event?.position);
      if (e.position > after) yield e;
    }
  }

  async function readStream(streamId: string): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const r of client.readStream(name(streamId), { direction: FORWARDS, fromRevision: START })) {
        const e = ours(r);
        if (e) out.push(e);
      }
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
    return out;
  }

  return { name, allFilter, ours, head, streamVersion, pages, readStream };
}

export function createKurrentEventStore(connectionString: string, opts: KurrentStoreOptions = {}): KurrentEventStore {
  const client: KurrentClientLike = opts.client ?? KurrentDBClient.connectionString(connectionString);
  const { name, allFilter, ours, head, streamVersion, pages, readStream } = kurrentReads(
    client,
    opts.namespace ? `${opts.namespace}.` : '',
  );
  const now = opts.now ?? (() => new Date());
  const mutex = new Mutex();
  const listeners = new Set<(events: RecordedEvent[]) => void>();
  let lastNotified = 0;
  let subscription: ReturnType<KurrentClientLike['subscribeToAll']> | undefined;

  function notify(events: RecordedEvent[]): void {
    const fresh = events.filter((e) => e.position > lastNotified);
    if (fresh.length === 0) return;
    lastNotified = (fresh[fresh.length - 1] as RecordedEvent).position;
    for (const l of listeners) {
      try {
        l(fresh);
      } catch {
        /* a listener's fault is not the writer's */
      }
    }
  }

  async function write(streamId: string, events: RecordedEvent[], expected: ExpectedVersion, actual: number): Promise<void> {
    const first = events[0] as RecordedEvent;
    try {
      // The index is fed by reads only: an append's result carries one position for the whole batch.
      await client.appendToStream(name(streamId), events.map(toEventData), { streamState: streamStateFor(first.version) });
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const a = err.actualState;
        throw new ConcurrencyError(streamId, expected, typeof a === 'bigint' ? versionOf(a) : actual);
      }
      throw err;
    }
  }

  const store: KurrentEventStore = {
    async append(streamId, events, options) {
      if (events.length === 0) throw new Error('append needs at least one event');
      if (options.inTransaction) throw new Error('KurrentDB appends cannot run SQL in their transaction (inTransaction)');
      const recorded = await mutex.run(async () => {
        // 1. Resolve the expected version to the exact revision, since the version is hashed.
        const actual =
          typeof options.expectedVersion === 'number' || options.expectedVersion === 'no_stream' ? -1 : await streamVersion(streamId);
        const base =
          options.expectedVersion === 'no_stream' ? 0 : typeof options.expectedVersion === 'number' ? options.expectedVersion : actual;
        if (options.expectedVersion === 'stream_exists' && actual === 0) throw new ConcurrencyError(streamId, 'stream_exists', 0);
        // 2. Chain onto the head of the log.
        const { position, hash: prevHash } = await head();
        const out: RecordedEvent[] = chainEvents(
          events,
          {
            streamId,
            baseVersion: base,
            headPosition: position,
            headHash: prevHash,
            metadata: options.metadata,
            recordedAt: now().toISOString(),
          },
          randomUUID,
        ) as RecordedEvent[];
        // 3. The server checks the expected revision atomically.
        await write(streamId, out, options.expectedVersion, base);
        return out;
      });
      notify(recorded);
      const last = recorded[recorded.length - 1] as RecordedEvent;
      return { nextVersion: last.version, lastPosition: last.position, events: recorded };
    },

    async appendRecorded(events) {
      await mutex.run(async () => {
        let h = await head();
        for (const e of events) {
          if (e.position !== h.position + 1 || e.prevHash !== h.hash)
            throw new ChainContinuityError(`event ${e.position} does not continue the target log at position ${h.position}`);
          await write(e.streamId, [e], e.version - 1, e.version - 1);
          h = { position: e.position, hash: e.hash };
        }
      });
    },

    readStream,

    async readAll(o = {}) {
      const limit = o.limit ?? 1000;
      const out: RecordedEvent[] = [];
      if (limit <= 0) return out;
      for await (const e of pages(o.after ?? 0)) {
        out.push(e);
        if (out.length >= limit) break;
      }
      return out;
    },

    streamAll(o = {}) {
      return pages(o.after ?? 0);
    },

    async headPosition() {
      return (await head()).position;
    },

    onAppended(listener) {
      listeners.add(listener);
      if (!subscription) {
        // Catch-up subscription from the end: events other processes append reach listeners too.
        subscription = client.subscribeToAll({ fromPosition: END, filter: allFilter() });
        subscription.on('data', (r: AllStreamResolvedEvent) => {
          const e = ours(r);
          if (e) notify([e]);
        });
        subscription.on('error', () => {
          /* the local notifications still work; a later onAppended re-subscribes */
          subscription = undefined;
        });
      }
      return () => {
        listeners.delete(listener);
      };
    },

    async close() {
      listeners.clear();
      await subscription?.unsubscribe().catch(() => {});
      subscription = undefined;
      await client.dispose();
    },
  };
  return store;
}
