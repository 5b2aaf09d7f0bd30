/**
 * The pure shape of every aggregate: `decide(command, state) -> events | error` and
 * `evolve(state, event) -> state`. No I/O: time, ids and lookups arrive inside the command.
 */
import type { NewEvent } from './events.js';

/** Expected failures, mapped to HTTP statuses by the routes. */
export type DomainErrorCode = 'validation' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict';

export interface DomainError {
  code: DomainErrorCode;
  message: string;
}

export type DecideResult<E extends NewEvent> = { ok: true; events: E[] } | { ok: false; error: DomainError };

export interface Decider<C, E extends NewEvent, S> {
  initialState(): S;
  decide(command: C, state: S): DecideResult<E>;
  evolve(state: S, event: E): S;
}

export const accept = <E extends NewEvent>(...events: E[]): DecideResult<E> => ({ ok: true, events });
export const reject = (code: DomainErrorCode, message: string): { ok: false; error: DomainError } => ({
  ok: false,
  error: { code, message },
});
