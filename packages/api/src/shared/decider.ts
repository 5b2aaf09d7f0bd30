/**
 * The pure shape of every aggregate: `decide(command, state) -> events | error` and
 * `evolve(state, event) -> state`. No I/O: time, ids and lookups arrive inside the command.
 */
import { type AppError, appError, type ErrorCode } from './errors.js';
import type { NewEvent } from './events.js';

export type DecideResult<E extends NewEvent> = { ok: true; events: E[] } | { ok: false; error: AppError };

export interface Decider<C, E extends NewEvent, S> {
  initialState(): S;
  decide(command: C, state: S): DecideResult<E>;
  evolve(state: S, event: E): S;
}

export const accept = <E extends NewEvent>(...events: E[]): DecideResult<E> => ({ ok: true, events });
/** A refusal in the API's one vocabulary (shared/errors.ts): a service returns it as it is. */
export const reject = (code: ErrorCode, message: string): { ok: false; error: AppError } => ({
  ok: false,
  error: appError(code, message),
});
