/** The admin's member page over real HTTP on both stores: the member's history from their events, and the member search. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { HASH } from '../billing/billing.testkit.js';
import { adminLogin, approvedMember, login, registerMember } from '../identity/identity.testkit.js';

forEachStore('admin member history', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let admin: { token: string; user: { id: string; email: string } };

  beforeAll(async () => {
    server = await startTestServer(kind);
    api = apiClient(server.url);
    admin = await adminLogin(api);
  });
  afterAll(async () => server?.close());

  describe('history', () => {
    it('shows registration, approval, payments with their hash, the subscription and security changes in log order, with who acted', async () => {
      const m = await approvedMember(api, { firstName: 'Hana' });
      const submitted = await api.post(
        '/payments/submit-bitcoin-payment',
        { userId: m.id, planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(7001) },
        m.token,
      );
      expect(submitted.status).toBe(201);
      const paymentId = submitted.body.data.paymentId as string;
      expect((await api.post(`/admin/payments/${paymentId}/verify`, undefined, admin.token)).status).toBe(200);
      expect(
        (await api.post('/users/me/password', { currentPassword: m.password, newPassword: 'another-password-1' }, m.token)).status,
      ).toBe(200);

      const res = await api.get(`/admin/users/${m.id}/history`, admin.token);
      expect(res.status).toBe(200);
      expect(res.body.data.member).toMatchObject({
        id: m.id,
        email: m.email,
        firstName: 'Hana',
        status: 'approved',
        membershipStatus: 'active',
      });
      const history = res.body.data.history as {
        summary: string;
        category: string;
        actor: string;
        position: number;
        details: Record<string, unknown>;
      }[];
      expect(history.map((h) => h.summary)).toEqual([
        'Registered',
        'Approved',
        'Payment submitted: Monthly, 0.0005 BTC',
        'Payment verified: Monthly, 0.0005 BTC',
        expect.stringMatching(/^Subscription started: Monthly until \d{4}-\d{2}-\d{2}$/),
        'Password changed',
      ]);
      expect(history.map((h) => h.position)).toEqual([...history.map((h) => h.position)].sort((a, b) => a - b));
      expect(history[1]?.actor).toBe(`admin ${admin.user.email}`);
      expect(history[0]?.actor).toBe('member');
      expect(history[3]?.details).toMatchObject({ txHash: HASH(7001), amountSats: 50_000, planType: 'monthly' });
      // No hash of a password or token reaches the page.
      expect(JSON.stringify(res.body)).not.toMatch(/passwordHash|tokenHash|argon2/);
    });

    it('is for admins only; an unknown member is a 404', async () => {
      const m = await registerMember(api);
      const member = await login(api, m.email, m.password);
      expect((await api.get(`/admin/users/${m.id}/history`, member.token)).status).toBe(403);
      expect((await api.get(`/admin/users/${m.id}/history`)).status).toBe(401);
      const unknown = await api.get('/admin/users/00000000-0000-0000-0000-000000000000/history', admin.token);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ success: false, error: 'Member not found', code: 'member.not_found' });
    });
  });

  describe('member search', () => {
    it('finds members by e-mail or name in any case, newest first', async () => {
      const a = await registerMember(api, { firstName: 'Zelda', lastName: 'Quist' });
      server.clock.advance(1000);
      const b = await registerMember(api, { firstName: 'Zelda', lastName: 'Quimby' });
      const byName = await api.get('/admin/users?q=zelda%20qui', admin.token);
      expect(byName.status).toBe(200);
      expect((byName.body.data.users as { id: string }[]).map((u) => u.id)).toEqual([b.id, a.id]);
      const byEmail = await api.get(`/admin/users?q=${encodeURIComponent(a.email.toUpperCase())}`, admin.token);
      expect((byEmail.body.data.users as { id: string }[]).map((u) => u.id)).toEqual([a.id]);
      expect((await api.get('/admin/users?q=%25', admin.token)).body.data.users).toEqual([]);
      expect((await api.get('/admin/users', admin.token)).body.data.users.length).toBeGreaterThan(1);
    });
  });
});
