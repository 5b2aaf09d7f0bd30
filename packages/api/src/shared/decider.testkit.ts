/**
 * The one given/when/then helper for decider unit tests (STYLE.md: given these events, when this
 * command, then these events or this error). Test code only: nothing in production imports a
 * `*.testkit.ts` file.
 *
 * @example
 * const { given } = deciderSpec(paymentDecider);
 * expect(given([requested]).when(submit)).toEqual({ ok: true, events: [submitted] });
 * thenError(given([]).when(submit), 'payment.not_found', 'Payment not found');
 */
import { expect } from 'vitest';
import type { NewEvent } from '../eventstore/types.js';
import type { DecideResult, Decider } from './decider.js';
import type { ErrorCode } from './errors.js';

export interface Given<C, E extends NewEvent, S> {
  /** The state the events fold into. */
  state: S;
  /** Decides `command` against that state. */
  when(command: C): DecideResult<E>;
}

/**
 * Binds the helper to one decider. `given` accepts any event the stream may hold (a second-factor
 * stream starts with identity's `UserRegistered`, for instance).
 */
export function deciderSpec<C, E extends NewEvent, S>(decider: Decider<C, E, S>) {
  const stateOf = (events: readonly NewEvent[]): S => events.reduce<S>((s, e) => decider.evolve(s, e as E), decider.initialState());
  return {
    stateOf,
    given(events: readonly NewEvent[]): Given<C, E, S> {
      const state = stateOf(events);
      return { state, when: (command: C) => decider.decide(command, state) };
    },
  };
}

/** Then exactly these events. */
export function thenEvents<E extends NewEvent>(result: DecideResult<E>, events: E[]): void {
  expect(result).toEqual({ ok: true, events });
}

/** Then this error (the message too, when given). */
export function thenError(result: DecideResult<NewEvent>, code: ErrorCode, message?: string): void {
  expect(
    result.ok ? { ok: true } : { ok: false, code: result.error.code, ...(message === undefined ? {} : { message: result.error.message }) },
  ).toEqual({
    ok: false,
    code,
    ...(message === undefined ? {} : { message }),
  });
}
