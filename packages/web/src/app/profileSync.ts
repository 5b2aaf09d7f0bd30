/**
 * How often the signed-in user is checked against the server (useProfileSync in session.ts): once per
 * page load, then every minute. Spec §4 restores the session with no server check; the product also
 * re-checks it so an approval, a suspension or a subscription change reaches an open tab
 * (docs/spec-departures.md).
 */
export const PROFILE_RECHECK_MS = 60_000;

/** The profile query's timing: asked when there is a token, fresh for a minute, asked again every minute, a failure not retried. */
export function profileSyncTiming(token: string | null | undefined) {
  return { enabled: Boolean(token), staleTime: PROFILE_RECHECK_MS, refetchInterval: PROFILE_RECHECK_MS, retry: false } as const;
}
