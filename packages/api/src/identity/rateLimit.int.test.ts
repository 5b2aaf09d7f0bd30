/**
 * Auth rate limits over real HTTP, client addresses from X-Forwarded-For (TRUST_PROXY=true):
 * - on the production configuration and its default limits, an attacker guessing the admin's
 *   password from one address is slowed down (exponential backoff, 429 with Retry-After) while the
 *   admin signs in, password and second factor, from another address (NIST SP 800-63B §5.2.2:
 *   throttling without lockout);
 * - the much higher per-account ceiling over every address, and the per-IP request limit, with
 *   small limits from the environment: 429 with a clear error and Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { enrolSecondFactor, registerMember } from './identity.testkit.js';
import { addressKey } from './limits.js';
import { totpCode } from './totp.js';

type Api = ReturnType<typeof apiClient>;

const from = (address: string) => ({ 'x-forwarded-for': address });
const loginFrom = (api: Api, address: string, email: string, password: string) =>
  api.call('POST', '/auth/login', { body: { email, password }, headers: from(address) });
const retryAfter = (res: { headers: Headers }) => Number(res.headers.get('retry-after'));

forEachStore('login throttling without lockout (production)', (kind) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { NODE_ENV: 'production', TRUST_PROXY: 'true' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it("an attacker's wrong passwords for the admin slow down their own address, not the admin signing in from another", async () => {
    const attacker = '198.51.100.7';
    const admin = '203.0.113.20';
    // The admin enrols the second factor production requires (from their own address).
    const first = await loginFrom(api, admin, TEST_ADMIN.email, TEST_ADMIN.password);
    expect(first.body.data.mfaEnrollmentRequired).toBe(true);
    const { secret } = await enrolSecondFactor(api, server.clock, first.body.data.token, from(admin));
    server.clock.advance(30_000);

    // 1. Twelve wrong passwords from the attacker's address: five are checked, then backoff.
    const guesses = [];
    for (let i = 0; i < 12; i++) guesses.push(await loginFrom(api, attacker, TEST_ADMIN.email, `wrong-password-${i}`));
    expect(guesses.map((g) => g.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    for (const g of guesses.slice(5)) {
      expect(g.body).toEqual({
        success: false,
        error: expect.stringMatching(/^Too many failed login attempts from your network/),
        code: 'rate_limited',
      });
      expect(retryAfter(g)).toBe(1);
    }
    // Even the right password waits from there.
    expect((await loginFrom(api, attacker, TEST_ADMIN.email, TEST_ADMIN.password)).status).toBe(429);

    // 2. Meanwhile the admin signs in from their address: password, then the second factor.
    const challenge = await loginFrom(api, admin, TEST_ADMIN.email, TEST_ADMIN.password);
    expect(challenge.status).toBe(200);
    expect(challenge.body.data.mfaRequired).toBe(true);
    const verified = await api.call('POST', '/auth/mfa/verify', {
      body: { mfaToken: challenge.body.data.mfaToken, code: totpCode(secret, server.clock.now()) },
      headers: from(admin),
    });
    expect(verified.status).toBe(200);
    expect((await api.get('/admin/stats', verified.body.data.token)).status).toBe(200);

    // 3. The attacker's wait doubles with each further failure: 1 s, then 2 s, then 4 s.
    for (const wait of [1, 2, 4]) {
      server.clock.advance(wait * 1000);
      expect((await loginFrom(api, attacker, TEST_ADMIN.email, 'wrong-password-again')).status).toBe(401);
      const refused = await loginFrom(api, attacker, TEST_ADMIN.email, 'wrong-password-again');
      expect(refused.status).toBe(429);
      expect(retryAfter(refused)).toBe(wait * 2);
    }
  });

  it('an IPv6 guesser counts as one party across its /64', async () => {
    const m = await registerMember(api);
    for (let i = 1; i <= 5; i++) expect((await loginFrom(api, `2001:db8:1:2::${i}`, m.email, 'wrong-password')).status).toBe(401);
    expect((await loginFrom(api, '2001:db8:1:2:ffff::9', m.email, m.password)).status).toBe(429);
    expect((await loginFrom(api, '2001:db8:1:3::1', m.email, m.password)).status).toBe(200);
  });
});

forEachStore('identity rate limits', (kind) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { TRUST_PROXY: 'true', LOGIN_FAILURES_PER_ACCOUNT: '6', LOGIN_FAILURES_PER_ADDRESS: '3', AUTH_REQUESTS_PER_IP_PER_MINUTE: '8' },
    });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it('past the per-account ceiling over every address the account waits out the window, then the right password works', async () => {
    const m = await registerMember(api);
    for (let i = 0; i < 6; i++) expect((await loginFrom(api, `192.0.2.${10 + i}`, m.email, 'wrong-password')).status).toBe(401);
    const blocked = await loginFrom(api, '192.0.2.99', m.email, m.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many failed login attempts for this account\. Please try again in 60 minutes/);
    expect(retryAfter(blocked)).toBe(60 * 60);
    server.clock.advance(60 * 60 * 1000 + 1000);
    expect((await loginFrom(api, '192.0.2.99', m.email, m.password)).status).toBe(200);
  });

  it('a successful login clears its address', async () => {
    const m = await registerMember(api);
    for (let i = 0; i < 2; i++) expect((await loginFrom(api, '192.0.2.50', m.email, 'wrong-password')).status).toBe(401);
    expect((await loginFrom(api, '192.0.2.50', m.email, m.password)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await loginFrom(api, '192.0.2.50', m.email, 'wrong-password')).status).toBe(401);
    expect((await loginFrom(api, '192.0.2.50', m.email, m.password)).status).toBe(429);
  });

  it('limits auth requests per IP per minute, saying when to come back', async () => {
    server.clock.advance(61_000);
    const statuses: number[] = [];
    const reset = () => api.call('POST', '/auth/reset-password', { body: { email: 'x@example.test' }, headers: from('192.0.2.200') });
    for (let i = 0; i < 10; i++) statuses.push((await reset()).status);
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(8)).toEqual([429, 429]);
    const res = await loginFrom(api, '192.0.2.200', 'x@example.test', 'whatever');
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/Too many requests/);
    expect(retryAfter(res)).toBe(60);
    server.clock.advance(30_000);
    expect(retryAfter(await reset())).toBe(30);
    server.clock.advance(31_000);
    expect((await reset()).status).toBe(200);
  });
});

describe('addressKey', () => {
  it('keeps IPv4, groups IPv6 by /64', () => {
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:0db8:0000:0000:ffff::')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey(undefined)).toBe('unknown');
  });
});
