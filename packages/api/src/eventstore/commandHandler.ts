/**
 * A command handler per aggregate (Emmett's shape): the decider is bound to its stream naming once,
 *
 *   const videos = aggregate(videoDecider, videoStreamId);        // next to the service, once
 *   await videos(ctx.store).handle(videoId, command, metadata);   // per command
 *
 * and each `handle` reads the stream, folds `evolve`, asks the pure `decide`, and appends with the
 * version read. On a concurrent write it reads again and decides again, so two admins verifying one
 * payment produce one event and one clear "already verified" answer.
 */
import type { DecideResult, Decider } from '../shared/decider.js';
import { type AppendOptions, ConcurrencyError, type EventMetadata, type EventStore, type NewEvent, type RecordedEvent } from './types.js';

export type HandleResult<S, E extends NewEvent> =
  | { ok: true; state: S; events: E[]; recorded: RecordedEvent[] }
  | Extract<DecideResult<E>, { ok: false }>;

export interface HandleOptions {
  /** Decisions made again after a concurrent write (the aggregate's default, else 5). */
  retries?: number;
  /** Runs in the append's transaction (a lease check, a row that commits with the events). */
  inTransaction?: AppendOptions['inTransaction'];
}

/** One aggregate on one event store: `handle(id, command, metadata)`. */
export interface CommandHandler<I, C, E extends NewEvent, S> {
  handle(id: I, command: C, metadata: EventMetadata, opts?: HandleOptions): Promise<HandleResult<S, E>>;
}

/** The decider bound to `store` and to its stream naming (`streamId(id)`). */
export function commandHandler<I, C, E extends NewEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: (id: I) => string,
  defaults: { retries?: number } = {},
): CommandHandler<I, C, E, S> {
  return {
    async handle(id, command, metadata, opts = {}) {
      const stream = streamId(id);
      const retries = opts.retries ?? defaults.retries ?? 5;
      for (let attempt = 0; ; attempt++) {
        const history = await store.readStream(stream);
        const state = history.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState());
        const result = decider.decide(command, state);
        if (!result.ok) return result;
        if (result.events.length === 0) return { ok: true, state, events: [], recorded: [] };
        try {
          const appended = await store.append(stream, result.events, {
            expectedVersion: history.length === 0 ? 'no_stream' : history.length,
            metadata,
            inTransaction: opts.inTransaction,
          });
          const next = result.events.reduce((s, e) => decider.evolve(s, e), state);
          return { ok: true, state: next, events: result.events, recorded: appended.events };
        } catch (err) {
          if (err instanceof ConcurrencyError && attempt < retries) continue;
          throw err;
        }
      }
    },
  };
}

/**
 * An aggregate's handler factory, made once at module level: the handler of each event store (one
 * per app context) is built on first use and kept.
 */
export function aggregate<I, C, E extends NewEvent, S>(
  decider: Decider<C, E, S>,
  streamId: (id: I) => string,
  defaults: { retries?: number } = {},
): (store: EventStore) => CommandHandler<I, C, E, S> {
  const handlers = new WeakMap<EventStore, CommandHandler<I, C, E, S>>();
  return (store) => {
    let h = handlers.get(store);
    if (!h) {
      h = commandHandler(store, decider, streamId, defaults);
      handlers.set(store, h);
    }
    return h;
  };
}
