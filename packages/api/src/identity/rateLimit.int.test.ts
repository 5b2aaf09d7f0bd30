/** Auth rate limits with small limits from the environment: 429 with a clear error. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { registerMember } from './identity.testkit.js';

forEachStore('identity rate limits', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { LOGIN_FAILURES_PER_ACCOUNT: '3', AUTH_REQUESTS_PER_IP_PER_MINUTE: '8' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it('blocks an account after its failed logins, even with the right password, until the window passes', async () => {
    const m = await registerMember(api);
    for (let i = 0; i < 3; i++) expect((await api.post('/auth/login', { email: m.email, password: 'wrong-password' })).status).toBe(401);
    const blocked = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/Too many failed login attempts/);
    server.clock.advance(15 * 60 * 1000 + 1000);
    expect((await api.post('/auth/login', { email: m.email, password: m.password })).status).toBe(200);
  });

  it('limits auth requests per IP per minute', async () => {
    server.clock.advance(61_000);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await api.post('/auth/reset-password', { email: 'x@example.test' })).status);
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(8)).toEqual([429, 429]);
    const res = await api.post('/auth/login', { email: 'x@example.test', password: 'whatever' });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(/Too many requests/);
    server.clock.advance(61_000);
    expect((await api.post('/auth/reset-password', { email: 'x@example.test' })).status).toBe(200);
  });
});
