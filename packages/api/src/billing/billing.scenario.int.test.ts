import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { rebuildProjections } from '../eventstore/projections.js';
import { TestClock } from '../shared/clock.testkit.js';
import { billingTestKit, HASH, type Member, seedMember } from './billing.testkit.js';
import { runLifecycle } from './subscriptions.service.js';

const DAY = 86_400_000;

forEachStore('billing: the "Done when" scenario of issue 3', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // A fixed day: on today's date the "same day next year" check below would fail every 29 February
    // (a year on is then 28 February; plans.unit.test.ts covers that case).
    server = await startTestServer(kind, { clock: new TestClock(new Date('2026-05-05T10:00:00.000Z')) });
  });
  afterAll(async () => server?.close());

  it('register → approve → annual intent → submit with hash → admin verifies → active for a year; the hash is spent', async () => {
    const api = apiClient(server.url);
    const email = 'done-when@example.test';
    const password = 'member-password-123';
    const reg = await api.post('/auth/register', {
      email,
      password,
      firstName: 'Dana',
      lastName: 'When',
      dateOfBirth: '1990-05-05',
      agreeToTerms: true,
    });
    expect(reg.status).toBe(201);
    const admin = (await api.post('/auth/login', TEST_ADMIN)).body.data.token as string;
    const userId = reg.body.data.user.id as string;
    expect((await api.post(`/admin/users/${userId}/approve`, undefined, admin)).status).toBe(200);
    const login = await api.post('/auth/login', { email, password });
    const token = login.body.data.token as string;

    const intent = await api.post('/payments/create-subscription-intent', { planType: 'annual' }, token);
    expect(intent.status).toBe(201);
    const hash = HASH('d0e');
    const submitted = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId, planType: 'annual', btcAmount: intent.body.data.btcAmount, transactionHash: hash },
      token,
    );
    expect(submitted.status).toBe(201);

    const pending = await api.get('/admin/pending-payments', admin);
    const row = pending.body.data.payments.find((p: { userEmail: string }) => p.userEmail === email);
    expect(row).toMatchObject({ planType: 'annual', btcAmount: '0.005', transactionHash: hash, id: intent.body.data.paymentId });
    expect((await api.get('/admin/stats', admin)).body.data).toMatchObject({ pendingPayments: 1, totalRevenue: '0', activeSubscribers: 0 });

    expect((await api.post(`/admin/payments/${row.id}/verify`, undefined, admin)).status).toBe(200);
    const sub = (await api.get('/payments/subscription', token)).body.data;
    expect(sub).toMatchObject({ status: 'active', planType: 'annual', cancelAtPeriodEnd: false, amount: 299.99 });
    const start = new Date(sub.currentPeriodStart);
    const end = new Date(sub.currentPeriodEnd);
    expect(end.getUTCFullYear() - start.getUTCFullYear()).toBe(1);
    expect([end.getUTCMonth(), end.getUTCDate(), end.getUTCHours()]).toEqual([
      start.getUTCMonth(),
      start.getUTCDate(),
      start.getUTCHours(),
    ]);
    const me = await api.post('/auth/login', { email, password });
    expect(me.body.data.user).toMatchObject({ membershipStatus: 'active', subscriptionStatus: 'active' });
    expect((await api.get('/admin/stats', admin)).body.data).toMatchObject({
      pendingPayments: 0,
      totalRevenue: '0.005',
      activeSubscribers: 1,
    });

    const someoneElse = await seedMember(server);
    for (const [who, tok] of [
      [userId, token],
      [someoneElse.id, someoneElse.token],
    ] as const) {
      const again = await api.post(
        '/payments/submit-bitcoin-payment',
        { userId: who, planType: 'monthly', btcAmount: '0.0005', transactionHash: hash },
        tok,
      );
      expect(again).toMatchObject({
        status: 409,
        body: { success: false, error: 'This transaction hash has already been used for another payment' },
      });
    }
  });
});

forEachStore('billing: analytics, stats and rebuild', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  beforeAll(async () => {
    server = await startTestServer(kind, { clock: new TestClock(new Date('2026-03-10T09:00:00.000Z')) });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  async function pay(m: Member, planType: 'monthly' | 'annual', hash: string) {
    const s = await kit.submit(m, { planType, btcAmount: planType === 'monthly' ? '0.0005' : '0.005', transactionHash: hash });
    return (await kit.verify(s.body.data.paymentId)).body.data.subscription;
  }

  it('GET /admin/analytics gives per-day revenue, registrations, approvals and active subscriptions', async () => {
    const a = await seedMember(server);
    const b = await seedMember(server);
    await seedMember(server, { approved: false });
    await pay(a, 'annual', HASH('aa1'));
    server.clock.advance(DAY);
    await pay(b, 'monthly', HASH('aa2'));
    await kit.submit(a, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH('aa3') }); // pending only
    server.clock.advance(2 * DAY);
    const r = await kit.api.get('/admin/analytics?days=5', kit.admin);
    expect(r.status).toBe(200);
    expect(r.body.data.from).toBe('2026-03-09');
    expect(r.body.data.to).toBe('2026-03-13');
    expect(r.body.data.days).toEqual([
      { date: '2026-03-09', revenueSats: 0, revenueBtc: '0', verifiedPayments: 0, registrations: 0, approvals: 0, activeSubscriptions: 0 },
      {
        date: '2026-03-10',
        revenueSats: 500000,
        revenueBtc: '0.005',
        verifiedPayments: 1,
        registrations: 3,
        approvals: 2,
        activeSubscriptions: 1,
      },
      {
        date: '2026-03-11',
        revenueSats: 50000,
        revenueBtc: '0.0005',
        verifiedPayments: 1,
        registrations: 0,
        approvals: 0,
        activeSubscriptions: 2,
      },
      { date: '2026-03-12', revenueSats: 0, revenueBtc: '0', verifiedPayments: 0, registrations: 0, approvals: 0, activeSubscriptions: 2 },
      { date: '2026-03-13', revenueSats: 0, revenueBtc: '0', verifiedPayments: 0, registrations: 0, approvals: 0, activeSubscriptions: 2 },
    ]);
    expect(r.body.data.totals).toMatchObject({
      revenueSats: 550000,
      revenueBtc: '0.0055',
      registrations: 3,
      approvals: 2,
      activeSubscriptions: 2,
    });
    expect((await kit.api.get('/admin/analytics', kit.admin)).body.data.days).toHaveLength(30);
    for (const bad of ['0', '367', 'abc', '1.5'])
      expect((await kit.api.get(`/admin/analytics?days=${bad}`, kit.admin)).body.error).toMatch(/^days: /);
    expect((await kit.api.get('/admin/analytics', a.token)).status).toBe(403);
    expect((await kit.api.get('/admin/stats', kit.admin)).body.data).toMatchObject({
      pendingPayments: 1,
      totalRevenue: '0.0055',
      activeSubscribers: 2,
    });
  });

  it('rebuildProjections gives identical billing read models', async () => {
    // Some more history: a cancellation, a lapse into past due, a rejection.
    const c = await seedMember(server);
    const sub = await pay(c, 'monthly', HASH('bb1'));
    await kit.api.post('/subscriptions/cancel', {}, c.token);
    const d = await seedMember(server);
    const s = await kit.submit(d, { planType: 'annual', btcAmount: '0.005' });
    await kit.api.post(`/admin/payments/${s.body.data.paymentId}/reject`, { reason: 'Nothing received' }, kit.admin);
    server.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + DAY));
    await runLifecycle(server.ctx);

    const db = server.ctx.db;
    const snapshot = async () => ({
      payments: await db.all('SELECT * FROM billing_payments ORDER BY id'),
      subscriptions: await db.all('SELECT * FROM billing_subscriptions ORDER BY user_id'),
      daily: await db.all('SELECT * FROM billing_daily ORDER BY day, metric'),
      users: await db.all('SELECT id, membership_status, subscription_status FROM users ORDER BY id'),
      counts: numbers(await db.all('SELECT key, n, total FROM billing_counts WHERE n <> 0 ORDER BY key')),
    });
    // The dashboard's counters are what counting the rows gives, live and rebuilt.
    const counted = async () =>
      numbers(
        await db.all(
          `SELECT key, n, total FROM (
             SELECT 'payment:' || status AS key, COUNT(*) AS n, SUM(amount_sats) AS total FROM billing_payments GROUP BY status
             UNION ALL
             SELECT 'subscription:' || status AS key, COUNT(*) AS n, 0 AS total FROM billing_subscriptions GROUP BY status
           ) AS c ORDER BY key`,
        ),
      );
    const before = await snapshot();
    expect(before.counts).toEqual(await counted());
    expect(before.counts.map((c) => c.key)).toEqual(
      expect.arrayContaining(['payment:rejected', 'payment:verified', 'subscription:active']),
    );
    expect(before.subscriptions.length).toBeGreaterThanOrEqual(3);
    expect(before.payments.some((p) => p.status === 'rejected')).toBe(true);
    await rebuildProjections(db, server.ctx.store, server.ctx.projections);
    expect(await snapshot()).toEqual(before);
    expect((await snapshot()).counts).toEqual(await counted());
  });
});

/** Counter rows with numbers (PostgreSQL answers BIGINT sums as strings). */
const numbers = (rows: Record<string, unknown>[]) => rows.map((r) => ({ key: String(r.key), n: Number(r.n), total: Number(r.total) }));
