/**
 * Session lifetimes on the production configuration, both stores (issue 42, ASVS 3.3.2): a session
 * ends SESSION_ABSOLUTE_DAYS after sign-in however often it refreshes (a stolen refresh cookie kept
 * fresh does not outlive it, nor do the access tokens it minted), and an admin's session ends after
 * STAFF_SESSION_IDLE_MINUTES without a refresh, while a member's does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { adminLogin, cookieHeader, cookiesOf, login, registerMember } from './identity.testkit.js';

const DAY = 24 * 3600 * 1000;
const MINUTE = 60 * 1000;

forEachStore('session lifetimes (production)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', SESSION_ABSOLUTE_DAYS: '30', STAFF_SESSION_IDLE_MINUTES: '30' },
    });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  const refresh = (cookies: Record<string, string>) =>
    api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token as string } });

  describe('absolute lifetime', () => {
    it('a refresh cookie kept fresh every few days stops at 30 days after sign-in, and its last access token with it', async () => {
      expect(server.ctx.env.SESSION_ABSOLUTE_DAYS).toBe(30);
      const m = await registerMember(api);
      const signedIn = await login(api, m.email, m.password);
      let cookies = signedIn.cookies;
      let token = signedIn.token;
      // An attacker holding the cookie refreshes every 5 days, well inside REFRESH_TOKEN_TTL_DAYS.
      for (let day = 5; day < 30; day += 5) {
        server.clock.advance(5 * DAY);
        const res = await refresh(cookies);
        expect(res.status, `day ${day}`).toBe(200);
        cookies = { ...cookies, ...cookiesOf(res.headers) };
        token = res.body.data.token;
      }
      // Day 25: the rotated cookie's lifetime is cut at day 30, not 30 days from now.
      const line = (await refresh(cookies)).headers.getSetCookie().find((l) => l.startsWith('refresh_token=')) ?? '';
      const maxAge = Number(/Max-Age=(\d+)/i.exec(line)?.[1]);
      expect(maxAge).toBeLessThanOrEqual(5 * 24 * 3600);
      expect(maxAge).toBeGreaterThan(4 * 24 * 3600);
      expect((await api.get('/users/profile', token)).status).toBe(200);
      server.clock.advance(5 * DAY); // day 30
      const refused = await refresh(cookies);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ success: false, code: 'auth.session_expired' });
      // The access token minted on day 25 ran out long ago anyway; the next test checks one inside its own lifetime.
      const stale = await api.get('/users/profile', token);
      expect(stale.status).toBe(401);
      expect(stale.body).toMatchObject({ success: false, code: 'auth.session_expired' });
    });

    it('an access token is refused at the session end even inside its own 15 minutes', async () => {
      const m = await registerMember(api);
      let { cookies } = await login(api, m.email, m.password);
      let token = '';
      for (const step of [10 * DAY, 10 * DAY, 10 * DAY - 5 * MINUTE]) {
        server.clock.advance(step);
        const res = await refresh(cookies);
        expect(res.status).toBe(200);
        cookies = { ...cookies, ...cookiesOf(res.headers) };
        token = res.body.data.token as string;
      }
      // Five minutes before the end: a fresh token works; six minutes on it still has nine of its own, but its session is over.
      expect((await api.get('/users/profile', token)).status).toBe(200);
      server.clock.advance(6 * MINUTE);
      expect((await api.get('/users/profile', token)).status).toBe(401);
    });

    it('a new sign-in starts a new lifetime', async () => {
      const m = await registerMember(api);
      await login(api, m.email, m.password);
      server.clock.advance(31 * DAY);
      const again = await login(api, m.email, m.password);
      expect((await api.get('/users/profile', again.token)).status).toBe(200);
      expect((await refresh(again.cookies)).status).toBe(200);
    });
  });

  describe('staff idle limit', () => {
    it("an admin's session unrefreshed for 30 minutes ends; one in use stays", async () => {
      const idle = await adminLogin(api);
      const busy = await adminLogin(api);
      let busyCookies = busy.cookies;
      for (let i = 0; i < 3; i++) {
        server.clock.advance(14 * MINUTE); // refreshes as each access token runs out
        const res = await refresh(busyCookies);
        expect(res.status).toBe(200);
        busyCookies = { ...busyCookies, ...cookiesOf(res.headers) };
      }
      // 42 minutes after sign-in: the busy session refreshed 14 minutes ago, the idle one never.
      const refused = await refresh(idle.cookies);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ success: false, code: 'auth.session_expired' });
      expect((await refresh(busyCookies)).status).toBe(200);
    });

    it("a member's session is not held to the staff idle limit", async () => {
      const m = await registerMember(api);
      const { cookies } = await login(api, m.email, m.password);
      server.clock.advance(3 * 60 * MINUTE);
      expect((await refresh(cookies)).status).toBe(200);
    });
  });
});
