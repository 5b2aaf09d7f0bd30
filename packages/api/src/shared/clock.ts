/**
 * Time and ids are injected so tests can move time and pin ids: production uses `systemClock` and
 * `uuidIds`; the settable `TestClock` is test code (`clock.testkit.ts`).
 */
import { randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdGenerator {
  next(): string;
}

export const uuidIds: IdGenerator = { next: () => randomUUID() };
