/** React view of the session store, and the sign-out used by the Logout route and buttons. */

import { isApproved } from '@members/ui/access';
import type { SessionState, User } from '@members/ui/api';
import { isAdmin } from '@members/ui/format';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { api, session } from './api';
import { profileSyncTiming } from './profileSync';
import { identityKeys, queries } from './queries';
import { useSite } from './site';

export function useSession(): SessionState & { loggedIn: boolean; approved: boolean; admin: boolean } {
  const state = useSyncExternalStore(session.subscribe, session.get, session.get);
  const site = useSite();
  return { ...state, loggedIn: Boolean(state.token), approved: isApproved(state.user), admin: isAdmin(state.user, site.adminEmail) };
}

/**
 * Stores a change the server has just made to the signed-in user (an e-mail confirmed, a name saved,
 * an approval seen). A profile check in flight was answered before the change, and merged by
 * useProfileSync after it would bring the old values back: it is cancelled, and asked again once
 * the stored user holds the new ones.
 */
export async function storeUserChange(queryClient: QueryClient, change: (user: User) => User): Promise<void> {
  await queryClient.cancelQueries({ queryKey: identityKeys.profile });
  const user = session.get().user;
  if (user) session.setUser(change(user));
  void queryClient.invalidateQueries({ queryKey: identityKeys.profile });
}

/** Ends the session on the server (best effort) and in the browser. */
export async function signOut(queryClient: QueryClient): Promise<void> {
  try {
    if (session.get().token) await api.logout();
  } catch {
    // the local session is cleared whatever the server says
  }
  session.clear();
  queryClient.clear();
}

/**
 * Keeps the stored user in step with the server (approval, subscription) once per page load and
 * every minute: the session comes back on load with the refresh answer's user, then is refreshed quietly.
 */
export function useProfileSync(): void {
  const { token } = useSyncExternalStore(session.subscribe, session.get, session.get);
  const profile = useQuery({
    ...queries.identity.profile(token),
    ...profileSyncTiming(token),
  });
  useEffect(() => {
    const fresh = profile.data;
    const current = session.get().user;
    if (!fresh || !current || typeof fresh !== 'object' || !('email' in fresh)) return;
    const merged: User = { ...current, ...fresh };
    if (JSON.stringify(merged) !== JSON.stringify(current)) session.setUser(merged);
  }, [profile.data]);
}
