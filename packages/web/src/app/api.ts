/** The web app's API client and session: same origin '/api', the session in memory (restored on load from the refresh cookie). */
import { createApiClient, createSessionStore } from '@members/ui/api';

export const TWO_FACTOR_PATH = '/account/two-factor';

export const session = createSessionStore();

/**
 * Where the API's redirects go: through the SPA's router once main.tsx has it (one navigation,
 * in the page), a full page load before. Both at once was a bug: a page guard (`<Navigate to="/login">`
 * when the session is cleared) and the 401 handler's `location.assign('/auth/login')` each moved the
 * tab, the second reloading the page the first had just shown (seen by admin-and-session.e2e).
 */
let go: (path: string) => void = (path) => location.assign(path);
export function routeApiRedirectsThrough(navigate: (path: string) => void): void {
  go = navigate;
}

export const api = createApiClient({
  baseUrl: '/api',
  session,
  onUnauthorized: () => {
    if (location.pathname !== '/login' && location.pathname !== '/auth/login') go('/login');
  },
  onForbidden: (_message, code) => {
    // A staff member whose role changed under an open page (issue 42): the stored role is stale. Read
    // the account again; the admin page then shows the new role's sections, no blocked page.
    if (code === 'auth.permission_required') {
      void api.getProfile().then(
        (user) => session.setUser(user),
        () => {},
      );
      return;
    }
    // An admin who must enrol a second factor is sent to its setup, not to the blocked page; the
    // blocked page is told the refusal's code, so it names the real reason (region, suspension...).
    const target = code === 'auth.second_factor_enrolment_required' ? TWO_FACTOR_PATH : `/blocked?reason=${encodeURIComponent(code ?? '')}`;
    if (location.pathname + location.search !== target) go(target);
  },
});

/**
 * Restores the session after a page load: the access token lives in memory only, so a reload asks
 * for a new one with the httpOnly refresh cookie. Only when the page's `csrf_token` cookie says a
 * session was opened in this browser (a visitor's page load makes no call); a refusal leaves the
 * page signed out. main.tsx renders once this has settled, so no page guard sees a signed-out
 * session that is about to come back.
 */
export async function restoreSession(): Promise<void> {
  if (!/(?:^|;\s*)csrf_token=/.test(document.cookie)) return;
  await api.refreshSession();
}
