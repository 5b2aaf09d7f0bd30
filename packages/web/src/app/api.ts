/** The web app's API client and session: same origin '/api', session in localStorage. */
import { createApiClient, createSessionStore } from '@members/ui/api';

export const session = createSessionStore();

export const api = createApiClient({
  baseUrl: '/api',
  session,
  onUnauthorized: () => {
    if (location.pathname !== '/login' && location.pathname !== '/auth/login') location.assign('/auth/login');
  },
  onForbidden: () => {
    if (location.pathname !== '/blocked') location.assign('/blocked');
  },
});
