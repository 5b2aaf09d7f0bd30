/**
 * The admin queues page by keyset (`?limit=&after=`), and the dashboard's figures come from
 * precomputed counters that always equal a count of the read-model rows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiAnswer, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';

forEachStore('admin list paging and counters', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  /** Walks every page of `path` with `limit`, returning the ids in order and the pages' sizes. */
  async function walk(path: string, key: 'users' | 'payments', limit: number) {
    const ids: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    for (let i = 0; i < 50; i++) {
      const r: ApiAnswer = await kit.api.get(`${path}?limit=${limit}${after ? `&after=${after}` : ''}`, kit.admin);
      expect(r.status).toBe(200);
      const rows = r.body.data[key] as { id: string }[];
      ids.push(...rows.map((x) => x.id));
      sizes.push(rows.length);
      after = r.body.data.nextCursor;
      if (after === null) return { ids, sizes, last: r.body.data };
    }
    throw new Error('paging did not end');
  }

  it('pages pending users oldest first, ties broken by id, with no row twice and the total from the counters', async () => {
    // Seven registrations at one instant (ties on created_at), two more later.
    const same = [];
    for (let i = 0; i < 7; i++) same.push(await seedMember(server, { approved: false }));
    server.clock.advance(1000);
    const later = [await seedMember(server, { approved: false }), await seedMember(server, { approved: false })];
    const all = await kit.api.get('/admin/users/pending?limit=200', kit.admin);
    const expected = (all.body.data.users as { id: string }[]).map((u) => u.id);
    expect(expected).toEqual([...same.map((m) => m.id).sort(), ...later.map((m) => m.id).sort()]);
    expect(all.body.data.nextCursor).toBeNull();
    expect(all.body.data.total).toBe(9);

    const { ids, sizes, last } = await walk('/admin/users/pending', 'users', 4);
    expect(ids).toEqual(expected);
    expect(sizes).toEqual([4, 4, 1]);
    expect(last.total).toBe(9);
    // The default page holds up to 50.
    expect((await kit.api.get('/admin/users/pending', kit.admin)).body.data.users).toHaveLength(9);
  });

  it('pages pending payments, and `count` is every pending payment', async () => {
    const submitted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await seedMember(server);
      const r = await kit.submit(m, { transactionHash: HASH(`${kind === 'sqlite' ? 7 : 8}0${i}`) });
      expect(r.status).toBe(201);
      submitted.push(r.body.data.paymentId);
      server.clock.advance(10);
    }
    const { ids, sizes, last } = await walk('/admin/pending-payments', 'payments', 2);
    expect(ids).toEqual(submitted);
    expect(sizes).toEqual([2, 2, 1]);
    expect(last.count).toBe(5);
  });

  it('refuses a bad page request with a 400 envelope', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'after=not-a-cursor', `after=${Buffer.from('[1,2]').toString('base64url')}`]) {
      const r = await kit.api.get(`/admin/users/pending?${q}`, kit.admin);
      expect([q, r.status, r.body.success]).toEqual([q, 400, false]);
      const p = await kit.api.get(`/admin/pending-payments?${q}`, kit.admin);
      expect([q, p.status, p.body.success]).toEqual([q, 400, false]);
    }
  });

  it('the counters behind /admin/stats equal counts of the read models after approvals, rejections and payments', async () => {
    const a = await seedMember(server, { approved: false });
    const b = await seedMember(server, { approved: false });
    expect((await kit.api.post(`/admin/users/${a.id}/approve`, undefined, kit.admin)).status).toBe(200);
    expect((await kit.api.post(`/admin/users/${b.id}/reject`, undefined, kit.admin)).status).toBe(200);
    const pending = (await kit.pending()).body.data.payments as { id: string }[];
    expect((await kit.verify(pending[0]?.id as string)).status).toBe(200);
    expect((await kit.api.post(`/admin/payments/${pending[1]?.id}/reject`, { reason: 'no such tx' }, kit.admin)).status).toBe(200);

    const db = server.ctx.db;
    const one = async (sql: string) => Number((await db.get<{ n: number | string | null }>(sql))?.n ?? 0);
    const stats = (await kit.api.get('/admin/stats', kit.admin)).body.data;
    expect(stats).toEqual({
      pendingApprovals: await one(`SELECT COUNT(*) AS n FROM users WHERE status = 'pending'`),
      activeMembers: await one(`SELECT COUNT(*) AS n FROM users WHERE status = 'approved' AND role = 'member'`),
      totalRevenue: expect.any(String),
      pendingPayments: await one(`SELECT COUNT(*) AS n FROM billing_payments WHERE status = 'submitted'`),
      activeSubscribers: await one(`SELECT COUNT(*) AS n FROM billing_subscriptions WHERE status IN ('active', 'past_due')`),
      chatAnswers: { vip: { answered: 0, medianSeconds: null }, standard: { answered: 0, medianSeconds: null } },
    });
    const revenue = await one(`SELECT SUM(amount_sats) AS n FROM billing_payments WHERE status = 'verified'`);
    expect(revenue).toBeGreaterThan(0);
    expect(Math.round(Number(stats.totalRevenue) * 1e8)).toBe(revenue);
    expect(stats.pendingPayments).toBe(3);
    expect(stats.activeSubscribers).toBe(1);
  });
});
