/** Time and ids are injected so tests can move time and pin ids. */
import { randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-01-15T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(date: Date | string): void {
    this.current = new Date(date);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface IdGenerator {
  next(): string;
}

export const uuidIds: IdGenerator = { next: () => randomUUID() };
