import { ApiError } from '@members/ui/api';
import { describe, expect, it } from 'vitest';
import { createQueryClient, GC_TIME_MS, retryDelay, shouldRetry } from './queryClient';

describe('react-query defaults (spec §8)', () => {
  it('doubles the delay from 1 s up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  it('retries failed fetches 3 times', () => {
    const err = new ApiError(0, 'Network error');
    expect([0, 1, 2, 3].map((n) => shouldRetry(n, err))).toEqual([true, true, true, false]);
    expect(shouldRetry(0, new ApiError(503, 'down'))).toBe(true);
  });
  it('does not retry answers that will not change (4xx)', () => {
    expect(shouldRetry(0, new ApiError(404, 'Video not found'))).toBe(false);
    expect(shouldRetry(0, new ApiError(429, 'Too many requests'))).toBe(true);
  });
  it('keeps unused data 5 minutes and never retries mutations', () => {
    const qc = createQueryClient();
    expect(qc.getDefaultOptions().queries?.gcTime).toBe(GC_TIME_MS);
    expect(GC_TIME_MS).toBe(300_000);
    expect(qc.getDefaultOptions().mutations?.retry).toBe(false);
  });
});
