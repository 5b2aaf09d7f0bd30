/** Refresh-token rotation, reuse detection, CSRF double submit and logout over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { cookieHeader, cookiesOf, login, registerMember } from './identity.testkit.js';

forEachStore('identity sessions', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind);
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  /** `csrf: null` sends no CSRF header. */
  const refresh = (cookies: Record<string, string>, csrf: string | null | undefined = cookies.csrf_token) =>
    api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), ...(csrf == null ? {} : { 'x-csrf-token': csrf }) } });

  describe('cookies', () => {
    it('login sets an httpOnly SameSite=Strict refresh cookie on /api/auth and a readable CSRF cookie', async () => {
      const m = await registerMember(api);
      const res = await api.post('/auth/login', { email: m.email, password: m.password });
      const lines = res.headers.getSetCookie();
      const refreshLine = lines.find((l) => l.startsWith('refresh_token=')) ?? '';
      const csrfLine = lines.find((l) => l.startsWith('csrf_token=')) ?? '';
      expect(refreshLine).toMatch(/HttpOnly/i);
      expect(refreshLine).toMatch(/SameSite=Strict/i);
      expect(refreshLine).toMatch(/Path=\/api\/auth/);
      expect(csrfLine).not.toMatch(/HttpOnly/i);
      expect(csrfLine).toMatch(/SameSite=Strict/i);
    });
  });

  describe('refresh', () => {
    it('rotates the token and answers token and user', async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      const res = await refresh(cookies);
      expect(res.status).toBe(200);
      expect(res.body.data.token).toEqual(expect.any(String));
      expect(res.body.data.user).toMatchObject({ id: m.id, email: m.email });
      const next = cookiesOf(res.headers);
      expect(next.refresh_token).toBeTruthy();
      expect(next.refresh_token).not.toBe(cookies.refresh_token);
      expect((await api.get('/users/profile', res.body.data.token)).status).toBe(200);
      // The rotated token keeps working once more.
      expect((await refresh(next)).status).toBe(200);
    });

    it('reusing a rotated token after the reuse interval fails and revokes the whole session', async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      const first = await refresh(cookies);
      const next = cookiesOf(first.headers);
      server.clock.advance((server.ctx.env.REFRESH_REUSE_INTERVAL_SECONDS + 1) * 1000);
      const reuse = await refresh(cookies);
      expect(reuse.status).toBe(401);
      expect(reuse.body.error).toBe('Your session has expired. Please log in again.');
      expect((await refresh(next)).status).toBe(401);
      expect((await api.get('/users/profile', first.body.data.token)).status).toBe(401);
    });

    it('a client that lost the rotated cookie (reload during a refresh) presents the old one again within the interval and stays signed in', async () => {
      expect(server.ctx.env.REFRESH_REUSE_INTERVAL_SECONDS).toBeGreaterThan(1);
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      const lost = await refresh(cookies); // its answer never reached the browser
      expect(lost.status).toBe(200);
      server.clock.advance(1000);
      const again = await refresh(cookies);
      expect(again.status).toBe(200);
      const kept = cookiesOf(again.headers);
      expect(kept.refresh_token).not.toBe(cookiesOf(lost.headers).refresh_token);
      // Same session: one entry in the member's list, and the new token rotates as usual.
      expect((await api.get('/users/profile', again.body.data.token)).status).toBe(200);
      expect((await api.get('/users/me/sessions', again.body.data.token)).body.data.sessions).toHaveLength(1);
      expect((await refresh(kept)).status).toBe(200);
      // The interval counts from the first use: later, the old token is theft again.
      server.clock.advance(server.ctx.env.REFRESH_REUSE_INTERVAL_SECONDS * 1000);
      expect((await refresh(cookies)).status).toBe(401);
      expect((await api.get('/users/profile', again.body.data.token)).status).toBe(401);
    });

    it('needs the CSRF header matching the cookie (403), and a cookie at all (401)', async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      const missing = await refresh(cookies, null);
      expect(missing.status).toBe(403);
      expect(missing.body.error).toBe('Missing or invalid CSRF token');
      expect((await refresh(cookies, 'not-the-cookie-value')).status).toBe(403);
      expect((await refresh({ refresh_token: cookies.refresh_token as string }, 'x')).status).toBe(403);
      expect((await api.post('/auth/refresh')).status).toBe(401);
      expect((await refresh({ refresh_token: 'made-up', csrf_token: 'c' }, 'c')).status).toBe(401);
      // The refused attempts did not consume the token.
      expect((await refresh(cookies)).status).toBe(200);
    });

    it('an expired refresh token fails', async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      server.clock.advance((server.ctx.env.REFRESH_TOKEN_TTL_DAYS * 24 * 3600 + 1) * 1000);
      expect((await refresh(cookies)).status).toBe(401);
    });
  });

  describe('logout', () => {
    it('revokes the session (CSRF required with the cookie) and clears the cookies', async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      const noCsrf = await api.call('POST', '/auth/logout', { headers: { cookie: cookieHeader(cookies) } });
      expect(noCsrf.status).toBe(403);
      const res = await api.call('POST', '/auth/logout', {
        headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token as string },
      });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().some((l) => l.startsWith('refresh_token=;'))).toBe(true);
      expect((await refresh(cookies)).status).toBe(401);
    });

    it('a bearer-only logout needs no CSRF header', async () => {
      const m = await registerMember(api);
      const { token } = await login(api, m.email, m.password);
      expect((await api.post('/auth/logout', undefined, token)).status).toBe(200);
    });
  });
});
