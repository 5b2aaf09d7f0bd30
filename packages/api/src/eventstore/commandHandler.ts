/**
 * Runs one command against one aggregate: read its stream, fold `evolve`, ask the pure `decide`,
 * append with the version read. On a concurrent write it reads again and decides again, so two
 * admins verifying one payment produce one event and one clear "already verified" answer.
 */
import type { DecideResult, Decider } from '../shared/decider.js';
import { type AppendOptions, ConcurrencyError, type EventMetadata, type EventStore, type NewEvent, type RecordedEvent } from './types.js';

export type HandleResult<S, E extends NewEvent> =
  | { ok: true; state: S; events: E[]; recorded: RecordedEvent[] }
  | Extract<DecideResult<E>, { ok: false }>;

export async function handleCommand<C, E extends NewEvent, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, E, S>,
  command: C,
  metadata: EventMetadata,
  opts: { retries?: number; inTransaction?: AppendOptions['inTransaction'] } = {},
): Promise<HandleResult<S, E>> {
  const retries = opts.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const history = await store.readStream(streamId);
    const state = history.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState());
    const result = decider.decide(command, state);
    if (!result.ok) return result;
    if (result.events.length === 0) return { ok: true, state, events: [], recorded: [] };
    try {
      const appended = await store.append(streamId, result.events, {
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
}
