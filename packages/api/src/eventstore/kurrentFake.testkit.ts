/**
 * An in-memory stand-in for the parts of KurrentDBClient the adapter uses (append with stream
 * states, $all and stream reads in both directions with filters, catch-up subscriptions), following
 * the client's documented behaviour and throwing its own error classes. It lets the shared contract
 * run against the adapter's logic here, where no KurrentDB server can run; it proves the mapping,
 * not the server — run the real suite with EVENTSTORE_URL for that.
 */
import { EventEmitter } from 'node:events';
import { type Filter, StreamNotFoundError, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import type { KurrentClientLike } from './kurrentEventStore.js';

interface Stored {
  streamId: string;
  id: string;
  isJson: true;
  revision: bigint;
  type: string;
  created: Date;
  data: unknown;
  metadata: unknown;
  position: { commit: bigint; prepare: bigint };
}

type Opts = Record<string, unknown> & { filter?: Filter; direction?: string; maxCount?: number | bigint };

function matches(filter: Filter | undefined, e: Stored): boolean {
  if (!filter) return true;
  const f = filter as { filterOn: string; regex?: string; prefixes?: string[] };
  const subject = f.filterOn === 'streamName' ? e.streamId : e.type;
  if (f.regex) return new RegExp(f.regex).test(subject);
  return (f.prefixes ?? []).some((p) => subject.startsWith(p));
}

export function fakeKurrentClient(): KurrentClientLike & { log: Stored[] } {
  // A system event first, as a real server has, and byte-offset-like positions (not 1..n).
  const log: Stored[] = [];
  const subs = new Set<EventEmitter & { filter?: Filter }>();
  const push = (e: Omit<Stored, 'position' | 'created' | 'isJson'>) => {
    const commit = BigInt(1000 + log.length * 137);
    const stored: Stored = { ...e, isJson: true, created: new Date(), position: { commit, prepare: commit } };
    log.push(stored);
    return stored;
  };
  push({ streamId: '$settings', id: 'sys-1', revision: 0n, type: '$settings', data: {}, metadata: {} });
  const streamOf = (name: string) => log.filter((e) => e.streamId === name);
  const resolved = (e: Stored) => ({ event: e, commitPosition: e.position.commit });

  const client = {
    log,
    async appendToStream(name: string, events: unknown, options: { streamState?: unknown } = {}) {
      const list = (Array.isArray(events) ? events : [events]) as { id: string; type: string; data: unknown; metadata: unknown }[];
      const current = streamOf(name).length;
      const state = options.streamState ?? 'any';
      const ok =
        state === 'any' ||
        (state === 'no_stream' && current === 0) ||
        (state === 'stream_exists' && current > 0) ||
        (typeof state === 'bigint' && state === BigInt(current - 1));
      if (!ok)
        throw new WrongExpectedVersionError(
          undefined as never,
          {
            streamName: name,
            current: current === 0 ? 'no_stream' : BigInt(current - 1),
            expected: state as never,
          } as never,
        );
      let last: Stored | undefined;
      for (const [i, e] of list.entries())
        last = push({ streamId: name, id: e.id, revision: BigInt(current + i), type: e.type, data: e.data, metadata: e.metadata });
      const appended = log.slice(log.length - list.length);
      setImmediate(() => {
        for (const s of subs) for (const e of appended) if (matches(s.filter, e)) s.emit('data', resolved(e));
      });
      return { success: true, nextExpectedRevision: BigInt(current + list.length - 1), position: last?.position };
    },
    readAll(options: Opts = {}) {
      const backwards = options.direction === 'backwards';
      const from = options.fromPosition as { commit: bigint } | string | undefined;
      const max = Number(options.maxCount ?? Number.POSITIVE_INFINITY);
      return (async function* readAllFake() {
        const order = backwards ? [...log].reverse() : log;
        let n = 0;
        for (const e of order) {
          if (typeof from === 'object' && (backwards ? e.position.commit > from.commit : e.position.commit < from.commit)) continue;
          if (!matches(options.filter, e)) continue;
          if (n++ >= max) return;
          yield resolved(e);
        }
      })();
    },
    readStream(name: string, options: Opts = {}) {
      const max = Number(options.maxCount ?? Number.POSITIVE_INFINITY);
      return (async function* readStreamFake() {
        const events = streamOf(name);
        if (events.length === 0) throw new StreamNotFoundError(undefined as never, name);
        const order = options.direction === 'backwards' ? [...events].reverse() : events;
        for (const e of order.slice(0, max)) yield resolved(e);
      })();
    },
    subscribeToAll(options: Opts = {}) {
      const s = Object.assign(new EventEmitter(), {
        filter: options.filter,
        async unsubscribe() {
          subs.delete(s);
        },
      });
      subs.add(s);
      return s;
    },
    async dispose() {
      subs.clear();
    },
  };
  return client as unknown as KurrentClientLike & { log: Stored[] };
}
