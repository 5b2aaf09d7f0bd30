import { describe, expect, it } from 'vitest';
import { abortableSleep, backoffDelay, bytesPerSecond } from './transferTiming.js';

describe('transfer timing', () => {
  it('doubles the back-off up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 1000, 10_000))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('measures speed over the last three seconds', () => {
    const samples = [
      { t: 0, bytes: 0 },
      { t: 5000, bytes: 1_000_000 },
      { t: 6000, bytes: 2_000_000 },
      { t: 7000, bytes: 3_000_000 },
    ];
    expect(bytesPerSecond(samples, 7000)).toBe(1_000_000);
    expect(bytesPerSecond(samples, 20_000)).toBe(0);
    expect(bytesPerSecond([], 0)).toBe(0);
  });

  it('stops waiting when aborted', async () => {
    const c = new AbortController();
    const waiting = abortableSleep(10_000, c.signal);
    c.abort();
    await expect(waiting).rejects.toThrow('Aborted');
  });
});
