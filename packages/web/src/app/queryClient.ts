/**
 * React Query defaults of spec §8: unused data kept 5 minutes, failed fetches retried 3 times with a
 * delay doubling from 1 s up to 30 s, mutations never retried. A 4xx answer is an answer, not a
 * failure to fetch, so it is not retried (a missing video shows 'Video Not Found' at once).
 */
import { ApiError } from '@members/ui/api';
import { QueryClient } from '@tanstack/react-query';

export const GC_TIME_MS = 5 * 60 * 1000;

/** @example retryDelay(0) // 1000, retryDelay(5) // 30000 */
export function retryDelay(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, 30_000);
}

export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 3) return false;
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) return false;
  return true;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { gcTime: GC_TIME_MS, retry: shouldRetry, retryDelay, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
