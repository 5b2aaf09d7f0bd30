/**
 * Reconciliation and the admin audit reports over real HTTP: members pay through the billing
 * module's own routes (submit → admin verify/reject) on top of a generated history of thousands of
 * events; reconcile passes on the untouched store and fails, naming the difference, when a read
 * model row is altered. Payments and replay stream as CSV / JSON envelopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';
import { runLifecycle } from '../billing/index.js';
import { type GeneratedHistory, generateBillingHistory } from './audit.testkit.js';
import { reconcile } from './reconcile.js';

const DAY = 86_400_000;

forEachStore('audit reconcile and reports', (kind) => {
  let server: TestServer;
  let admin: string;
  let history: GeneratedHistory;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  const verifiedIds: string[] = [];

  async function raw(path: string, token?: string) {
    const res = await fetch(`${server.url}/api${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      chunked: res.headers.get('transfer-encoding') === 'chunked',
      text: await res.text(),
    };
  }

  beforeAll(async () => {
    server = await startTestServer(kind);
    kit = await billingTestKit(server);
    admin = await adminToken(server);
    // 1. Thousands of generated events, projected inline like any append.
    history = await generateBillingHistory(server.ctx.store, { members: 400, start: new Date(server.clock.now().getTime() - 10 * DAY) });
    // 2. Real flows through the billing routes: three paid and verified, one rejected, one pending.
    const members = await Promise.all([1, 2, 3, 4, 5].map(() => seedMember(server)));
    for (const [i, m] of members.entries()) {
      const r = await kit.submit(m, { transactionHash: HASH(`77${i}`) });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    }
    const pending = (await kit.pending()).body.data.payments as { id: string; userEmail: string }[];
    const ours = members.map((m) => pending.find((p) => p.userEmail === m.email)?.id as string);
    for (const id of ours.slice(0, 3)) {
      expect((await kit.verify(id)).status).toBe(200);
      verifiedIds.push(id);
    }
    const rejected = await kit.api.post(`/admin/payments/${ours[3]}/reject`, { reason: 'no such transaction' }, admin);
    expect(rejected.status).toBe(200);
  });
  afterAll(async () => server?.close());

  it('passes on the untouched store (function and GET /admin/audit/reconcile)', async () => {
    const report = await reconcile(server.ctx.db, server.ctx.store);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.events).toBeGreaterThan(2000);
    expect(report.replayed.pendingPayments).toBe(1);
    expect(report.replayed.revenueSats).toBe(history.verifiedSats + 3 * 500_000);
    const r = await kit.api.get('/admin/audit/reconcile', admin);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ ok: true, differences: [] });
  });

  it('fails when a payment row is altered, naming the payment and the revenue', async () => {
    const id = verifiedIds[0] as string;
    await server.ctx.db.run('UPDATE billing_payments SET amount_sats = 400000 WHERE id = ?', [id]);
    const report = await reconcile(server.ctx.db, server.ctx.store);
    await server.ctx.db.run('UPDATE billing_payments SET amount_sats = 500000 WHERE id = ?', [id]);
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: 'counter', subject: 'totalRevenueSats', actual: report.replayed.revenueSats - 100_000 }),
        expect.objectContaining({
          check: 'payment-row',
          subject: `payment ${id}`,
          message: 'amount_sats differs',
          expected: 500000,
          actual: 400000,
        }),
      ]),
    );
    expect((await reconcile(server.ctx.db, server.ctx.store)).ok).toBe(true);
  });

  it('fails when a member is given an active subscription the events do not back', async () => {
    const m = await seedMember(server);
    await server.ctx.db.run(`UPDATE users SET membership_status = 'active', subscription_status = 'active' WHERE id = ?`, [m.id]);
    const r = await kit.api.get('/admin/audit/reconcile', admin);
    await server.ctx.db.run(`UPDATE users SET membership_status = 'inactive', subscription_status = NULL WHERE id = ?`, [m.id]);
    expect(r.body.data.ok).toBe(false);
    expect(r.body.data.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: 'member-subscription', subject: `member ${m.email}`, expected: null, actual: 'active' }),
      ]),
    );
  });

  it('GET /admin/audit/verify checks the chain; members get 403', async () => {
    const r = await kit.api.get('/admin/audit/verify', admin);
    expect(r.body.data).toMatchObject({ ok: true, headPosition: await server.ctx.store.headPosition() });
    const m = await seedMember(server);
    expect((await kit.api.get('/admin/audit/verify', m.token)).status).toBe(403);
    expect((await kit.api.get('/admin/audit/payments')).status).toBe(401);
    const unsigned = await kit.api.get('/admin/audit/checkpoint', admin);
    expect(unsigned.status).toBe(409);
    expect(unsigned.body.error).toContain('AUDIT_SIGNING_KEY');
  });

  describe('payments report', () => {
    it('streams CSV with every request, submission, verification and rejection', async () => {
      const r = await raw('/admin/audit/payments?format=csv', admin);
      expect(r.status).toBe(200);
      expect(r.type).toContain('text/csv');
      expect(r.chunked).toBe(true); // streamed, no Content-Length computed from a buffered body
      const lines = r.text.trim().split('\r\n');
      expect(lines[0]).toBe(
        'position,time,action,paymentId,userId,memberEmail,planType,amountSats,btcAmount,address,txHash,actingAdminId,actingAdminEmail,actingAdminName,reason,evidenceTxid,evidenceOutputIndex,evidenceReceivedSats,evidenceBlockHash,evidenceBlockHeight,evidenceConfirmations,overrideReason,overriddenChainStatus',
      );
      // 400 generated: 400 requested + 400 submitted + 320 verified + 80 rejected; 5 real submissions, 3 verified, 1 rejected.
      expect(lines.length - 1).toBe(1200 + 5 + 3 + 1);
      const verified = lines.find((l) => l.includes(verifiedIds[0] as string) && l.includes(',verified,'));
      expect(verified).toContain(',annual,500000,0.005,');
      expect(verified).toContain(HASH('770'));
      const rejected = lines.find((l) => l.includes(',rejected,') && l.includes('no such transaction'));
      expect(rejected).toBeDefined();
    });

    it('streams the JSON envelope and filters by --from/--to', async () => {
      const all = await kit.api.get('/admin/audit/payments?format=json', admin);
      expect(all.body.success).toBe(true);
      const first = all.body.data[0];
      expect(first).toMatchObject({
        action: 'requested',
        memberEmail: 'member0@example.test',
        address: 'bc1qgenerated0',
        btcAmount: '0.005',
      });
      const day = (first.time as string).slice(0, 10);
      const oneDay = await kit.api.get(`/admin/audit/payments?from=${day}&to=${day}`, admin);
      expect(oneDay.body.data.length).toBeGreaterThan(0);
      expect(oneDay.body.data.length).toBeLessThan(all.body.data.length);
      expect(oneDay.body.data.every((row: { time: string }) => row.time.startsWith(day))).toBe(true);
      expect((await kit.api.get('/admin/audit/payments?format=xml', admin)).status).toBe(400);
    });
  });

  it('replays every subscription as it was at a position (time travel)', async () => {
    const now = await kit.api.get('/admin/audit/replay?to=999999999', admin);
    expect(now.body.data.length).toBe(320 + 3);
    const [activated] = await server.ctx.store.readStream('subscription-m00001');
    const at = activated?.position as number;
    const early = await raw(`/admin/audit/replay?to=${at}&format=ndjson`, admin);
    const rows = early.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.userId)).toEqual(['m00000', 'm00001']);
    const justBefore = await kit.api.get(`/admin/audit/replay?to=${at - 1}`, admin);
    expect(justBefore.body.data.map((r: { userId: string }) => r.userId)).toEqual(['m00000']);
    expect(rows[0]).toMatchObject({ status: 'active', planType: 'annual', memberEmail: 'member0@example.test', btcAmount: '0.005' });
    const beforeAll = await kit.api.get(`/admin/audit/replay?to=${encodeURIComponent('2000-01-01')}`, admin);
    expect(beforeAll.body.data).toEqual([]);
    expect((await kit.api.get('/admin/audit/replay?to=yesterday', admin)).status).toBe(400);
    // A bare day is the whole day (UTC): replaying to the day of the last event reaches the head.
    const head = await server.ctx.store.headPosition();
    const [last] = await server.ctx.store.readAll({ after: head - 1 });
    const day = String(last?.recordedAt).slice(0, 10);
    const today = await fetch(`${server.url}/api/admin/audit/replay?to=${day}&format=ndjson`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    await today.text();
    expect(today.headers.get('x-replayed-to-position')).toBe(String(head));
    expect((await kit.api.get('/admin/audit/replay?to=2026-02-31', admin)).status).toBe(400);
  });

  it('still reconciles after renewals, cancellations and the lifecycle moving a year on (runs last)', async () => {
    const [a, b] = [await seedMember(server), await seedMember(server)];
    const payAndVerify = async (m: typeof a, body: Record<string, unknown>) => {
      expect((await kit.submit(m, body)).status).toBeLessThan(300);
      const row = ((await kit.pending()).body.data.payments as { id: string; userId: string }[]).find((p) => p.userId === m.id);
      expect((await kit.verify(row?.id as string)).status).toBe(200);
    };
    await payAndVerify(a, { transactionHash: HASH(881) });
    await payAndVerify(a, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(882) }); // a renewal
    await payAndVerify(b, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(883) });
    expect((await kit.api.post('/subscriptions/cancel', undefined, b.token)).status).toBe(200);
    const mid = await reconcile(server.ctx.db, server.ctx.store);
    expect(mid.differences).toEqual([]);
    server.clock.advance(400 * DAY);
    await runLifecycle(server.ctx);
    const after = await reconcile(server.ctx.db, server.ctx.store);
    expect(after.differences).toEqual([]);
    expect(after.replayed.activeSubscribers).toBe(0);
    expect(after.replayed.revenueSats).toBe(mid.replayed.revenueSats);
    // A year on, the old token has expired.
    const states = (await kit.api.get('/admin/audit/replay?to=999999999', await adminToken(server))).body.data as {
      userId: string;
      status: string;
    }[];
    expect(states.find((s) => s.userId === a.id)?.status).toBe('unpaid');
    expect(states.find((s) => s.userId === b.id)?.status).toBe('canceled');
  });

  it('answers members with 403 on every report', async () => {
    const m = await seedMember(server);
    for (const p of ['reconcile', 'payments', 'replay?to=1'])
      expect((await apiClient(server.url).get(`/admin/audit/${p}`, m.token)).status).toBe(403);
  });
});
