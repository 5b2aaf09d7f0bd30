/** The web app's API client and session: same origin '/api', session in localStorage. */
import { createApiClient, createSessionStore } from '@members/ui/api';

export const TWO_FACTOR_PATH = '/account/two-factor';

export const session = createSessionStore();

export const api = createApiClient({
  baseUrl: '/api',
  session,
  onUnauthorized: () => {
    if (location.pathname !== '/login' && location.pathname !== '/auth/login') location.assign('/auth/login');
  },
  onForbidden: (_message, code) => {
    // An admin who must enrol a second factor is sent to its setup, not to the blocked page.
    const target = code === 'auth.second_factor_enrolment_required' ? TWO_FACTOR_PATH : '/blocked';
    if (location.pathname !== target) location.assign(target);
  },
});
