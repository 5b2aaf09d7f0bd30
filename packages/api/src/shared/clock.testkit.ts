/** A clock tests can set and advance (test code only; production uses `systemClock`). */
import type { Clock } from './clock.js';

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
