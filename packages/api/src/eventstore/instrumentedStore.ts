/**
 * An EventStore decorator that reports every append (events written, time taken, outcome) to an
 * observer, so the adapters stay free of metrics code. Reads pass through untouched.
 */
import type { EventStore } from './types.js';

export interface AppendObserver {
  /** `seconds` is wall time of the append call; `events` is 0 when it failed. */
  appended(seconds: number, events: number, outcome: 'ok' | 'error'): void;
}

export function instrumentStore(store: EventStore, observer: AppendObserver): EventStore {
  return {
    async append(streamId, events, options) {
      const started = performance.now();
      try {
        const result = await store.append(streamId, events, options);
        observer.appended((performance.now() - started) / 1000, events.length, 'ok');
        return result;
      } catch (err) {
        observer.appended((performance.now() - started) / 1000, 0, 'error');
        throw err;
      }
    },
    readStream: (streamId) => store.readStream(streamId),
    readAll: (options) => store.readAll(options),
    streamAll: (options) => store.streamAll(options),
    headPosition: () => store.headPosition(),
    onAppended: (listener) => store.onAppended(listener),
    close: () => store.close(),
  };
}
