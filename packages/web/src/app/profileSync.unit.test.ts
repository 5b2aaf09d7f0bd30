/** The session re-check (a departure from spec §4's "no server check", docs/spec-departures.md). */
import { describe, expect, it } from 'vitest';
import { PROFILE_RECHECK_MS, profileSyncTiming } from './profileSync';

describe('the session re-check', () => {
  it('asks the server for the signed-in user every minute, and not without a token', () => {
    expect(PROFILE_RECHECK_MS).toBe(60_000);
    const timing = profileSyncTiming('token');
    // A failed check is not retried: the next one comes a minute later.
    expect([timing.enabled, timing.staleTime, timing.refetchInterval, timing.retry]).toEqual([true, 60_000, 60_000, false]);
    expect(profileSyncTiming(null).enabled).toBe(false);
  });
});
