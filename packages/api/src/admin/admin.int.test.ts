/** The admin approval queue and dashboard counters over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { adminLogin, login, registerMember, registrationPayload } from '../identity/identity.testkit.js';

forEachStore('admin', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let adminToken: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { TRUST_PROXY: 'true' } });
    api = apiClient(server.url);
    adminToken = (await adminLogin(api)).token;
  });
  afterAll(async () => server?.close());

  const stats = async () => (await api.get('/admin/stats', adminToken)).body.data;
  const pendingIds = async () => ((await api.get('/admin/users/pending', adminToken)).body.data.users as { id: string }[]).map((u) => u.id);
  const eventCount = () => server.ctx.store.headPosition();

  describe('pending users', () => {
    it('lists pending users oldest first with the fields the admin table needs, and geo from the client IP', async () => {
      const first = await registerMember(api);
      server.clock.advance(1000);
      const res = await api.call('POST', '/auth/register', { body: registrationPayload(), headers: { 'x-forwarded-for': '8.8.8.8' } });
      expect(res.status).toBe(201);
      const list = await api.get('/admin/users/pending', adminToken);
      expect(list.status).toBe(200);
      const users = list.body.data.users as Record<string, unknown>[];
      const ids = users.map((u) => u.id);
      expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(res.body.data.user.id));
      const second = users.find((u) => u.id === res.body.data.user.id);
      expect(Object.keys(second ?? {}).sort()).toEqual([
        'createdAt',
        'email',
        'firstName',
        'geoLocation',
        'id',
        'lastName',
        'registrationDate',
      ]);
      expect(second?.geoLocation).toMatchObject({ country: 'US' });
      expect(users.find((u) => u.id === first.id)?.geoLocation).toBeNull();
    });
  });

  describe('approve and reject', () => {
    it('approving moves the counters and leaves the pending list; approving twice is a 409 with no second event', async () => {
      const m = await registerMember(api);
      const before = await stats();
      const res = await api.post(`/admin/users/${m.id}/approve`, undefined, adminToken);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const after = await stats();
      expect(after.pendingApprovals).toBe(before.pendingApprovals - 1);
      expect(after.activeMembers).toBe(before.activeMembers + 1);
      expect(await pendingIds()).not.toContain(m.id);
      const head = await eventCount();
      const again = await api.post(`/admin/users/${m.id}/approve`, undefined, adminToken);
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('User is already approved');
      expect((await api.post(`/admin/users/${m.id}/reject`, undefined, adminToken)).status).toBe(409);
      expect(await eventCount()).toBe(head);
    });

    it('rejecting lowers pending approvals only; approving a rejected user is a 409', async () => {
      const m = await registerMember(api);
      const before = await stats();
      const res = await api.post(`/admin/users/${m.id}/reject`, { reason: 'Could not verify age' }, adminToken);
      expect(res.status).toBe(200);
      const after = await stats();
      expect(after.pendingApprovals).toBe(before.pendingApprovals - 1);
      expect(after.activeMembers).toBe(before.activeMembers);
      const head = await eventCount();
      const approve = await api.post(`/admin/users/${m.id}/approve`, undefined, adminToken);
      expect(approve.status).toBe(409);
      expect(approve.body.error).toBe('User has been rejected and cannot be approved');
      expect(await eventCount()).toBe(head);
    });

    it('validates the reason, and answers 404 for an unknown user', async () => {
      const m = await registerMember(api);
      expect((await api.post(`/admin/users/${m.id}/reject`, { reason: 5 }, adminToken)).body.error).toBe('reason: must be a string');
      expect((await api.post(`/admin/users/${m.id}/reject`, { reason: 'x'.repeat(501) }, adminToken)).status).toBe(400);
      const unknown = await api.post('/admin/users/does-not-exist/approve', undefined, adminToken);
      expect(unknown.status).toBe(404);
      expect((await api.post('/admin/users/does-not-exist/reject', undefined, adminToken)).status).toBe(404);
      expect((await api.post('/admin/users/bad%20id!/approve', undefined, adminToken)).status).toBe(400);
      expect(await pendingIds()).toContain(m.id);
    });
  });

  describe('permissions', () => {
    it('members get 403 and anonymous callers 401 on every admin route', async () => {
      const m = await registerMember(api);
      const { token } = await login(api, m.email, m.password);
      const routes: [string, string][] = [
        ['GET', '/admin/users/pending'],
        ['GET', '/admin/stats'],
        ['POST', `/admin/users/${m.id}/approve`],
        ['POST', `/admin/users/${m.id}/reject`],
      ];
      for (const [method, path] of routes) {
        const member = await api.call(method, path, { token });
        expect({ path, status: member.status }).toEqual({ path, status: 403 });
        expect(member.body.error).toBe("You don't have permission to access this page.");
        expect((await api.call(method, path)).status).toBe(401);
      }
      expect(await pendingIds()).toContain(m.id);
    });
  });

  describe('stats', () => {
    it('answers the dashboard counters with revenue as a BTC string', async () => {
      const s = await stats();
      expect(s).toEqual({
        pendingApprovals: expect.any(Number),
        activeMembers: expect.any(Number),
        totalRevenue: expect.stringMatching(/^\d+(\.\d+)?$/),
        pendingPayments: expect.any(Number),
        activeSubscribers: expect.any(Number),
        // No chat on this server: nothing answered in either tier.
        chatAnswers: { vip: { answered: 0, medianSeconds: null }, standard: { answered: 0, medianSeconds: null } },
      });
      expect(s.pendingApprovals).toBe((await pendingIds()).length);
    });
  });
});
