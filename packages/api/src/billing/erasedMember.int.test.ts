/**
 * Erasure and money, as an attacker would try it (issue 27, finding 8), on the production
 * configuration over real HTTP, per store: a member submits a payment and erases the account; the
 * admin's verification then answers 409 and activates nothing, and the dashboard stops counting the
 * account. An active subscriber who erases the account loses the subscription, in the read model and
 * as an event in the log, and the auditor's replay, reconciliation and payment history show both.
 * An erasure made before this rule (a MemberErased with no billing events after it) is closed by the
 * verification itself and by the lifecycle pass.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { replayLedger } from '../audit/ledger.js';
import { paymentHistory } from '../audit/paymentHistory.js';
import { reconcile } from '../audit/reconcile.js';
import { adminLogin, approvedMember } from '../identity/identity.testkit.js';
import { HASH } from './billing.testkit.js';
import { runLifecycle } from './subscriptions.service.js';

type Api = ReturnType<typeof apiClient>;
const CANCELED = "This payment was canceled because the member's account was erased; it cannot be verified";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

forEachStore('billing: an erased member pays nothing and keeps nothing', (kind) => {
  let server: TestServer;
  let api: Api;
  let admin: string;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example.test', REQUIRE_ADMIN_2FA: 'false' },
    });
    api = apiClient(server.url);
    admin = (await adminLogin(api)).token;
  });
  afterAll(async () => server?.close());

  const stats = async () => (await api.get('/admin/stats', admin)).body.data;
  const submit = (m: { id: string; token: string }) => {
    n += 1;
    return api.post(
      '/payments/submit-bitcoin-payment',
      { userId: m.id, planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(`${kind === 'sqlite' ? 7 : 8}${n}`) },
      m.token,
    );
  };
  const erase = (m: { token: string; password: string }) =>
    api.call('DELETE', '/users/me', { body: { password: m.password, confirmation: 'DELETE' }, token: m.token });
  const subscriptionEvents = async (userId: string) =>
    (await server.ctx.store.readStream(`subscription-${userId}`)).map((e) => ({ type: e.type, reason: e.data.reason }));

  it('a pending payment of an erased member cannot be verified: 409, no subscription, the dashboard unchanged', async () => {
    const before = await stats();
    const m = await approvedMember(api);
    const paid = await submit(m);
    expect(paid.body.error).toBeUndefined();
    const paymentId = paid.body.data.paymentId as string;
    expect(await stats()).toMatchObject({ activeMembers: before.activeMembers + 1, pendingPayments: before.pendingPayments + 1 });

    expect((await erase(m)).status).toBe(200);
    const verified = await api.post(`/admin/payments/${paymentId}/verify`, undefined, admin);
    expect(verified).toMatchObject({ status: 409, body: { success: false, error: CANCELED } });
    expect(await server.ctx.db.get('SELECT * FROM billing_subscriptions WHERE user_id = ?', [m.id])).toBeUndefined();
    expect(await server.ctx.db.get('SELECT membership_status FROM users WHERE id = ?', [m.id])).toEqual({ membership_status: 'inactive' });
    expect(await subscriptionEvents(m.id)).toEqual([]);
    // Neither an active member, nor a pending payment, nor a subscriber any more.
    expect(await stats()).toEqual(before);
    const pending = (await api.get('/admin/pending-payments', admin)).body.data.payments;
    expect(pending.map((p: { id: string }) => p.id)).not.toContain(paymentId);
    // Rejecting it is refused the same way; the payment's stream ends with the cancellation.
    const rejected = await api.post(`/admin/payments/${paymentId}/reject`, { reason: 'too late' }, admin);
    expect(rejected).toMatchObject({ status: 409, body: { error: CANCELED } });
    const events = await server.ctx.store.readStream(`payment-${paymentId}`);
    expect(events.map((e) => e.type)).toEqual(['PaymentSubmitted', 'PaymentCanceled']);
    expect(events[1]?.data).toMatchObject({ reason: 'account_erased', previousStatus: 'submitted', userId: m.id, amountSats: 50000 });
    // The auditor sees why the payment never became revenue.
    const rows = await collect(paymentHistory(server.ctx.store.streamAll({ batchSize: 100 })));
    expect(rows.filter((r) => r.paymentId === paymentId).map((r) => [r.action, r.reason])).toEqual([
      ['submitted', null],
      ['canceled', 'account_erased'],
    ]);
    expect((await reconcile(server.ctx.db, server.ctx.store)).differences).toEqual([]);
  });

  it("an active subscriber's erasure ends the subscription in the read model and in the log; the books still balance", async () => {
    const m = await approvedMember(api);
    const paid = await submit(m);
    expect((await api.post(`/admin/payments/${paid.body.data.paymentId}/verify`, undefined, admin)).status).toBe(200);
    const before = await stats();
    expect((await api.get('/payments/subscription', m.token)).body.data).toMatchObject({ status: 'active' });

    expect((await erase(m)).status).toBe(200);
    expect(await server.ctx.db.get('SELECT status FROM billing_subscriptions WHERE user_id = ?', [m.id])).toEqual({ status: 'canceled' });
    expect(await server.ctx.db.get('SELECT membership_status, subscription_status FROM users WHERE id = ?', [m.id])).toEqual({
      membership_status: 'inactive',
      subscription_status: 'canceled',
    });
    expect(await subscriptionEvents(m.id)).toEqual([
      { type: 'SubscriptionActivated', reason: undefined },
      { type: 'SubscriptionCanceled', reason: 'account_erased' },
    ]);
    // Revenue stays (the money was received); the member and the subscriber are gone from the counts.
    expect(await stats()).toEqual({
      ...before,
      activeMembers: before.activeMembers - 1,
      activeSubscribers: before.activeSubscribers - 1,
    });
    const ledger = await replayLedger(server.ctx.store.streamAll({ batchSize: 100 }));
    expect(ledger.subscriptions.get(m.id)).toMatchObject({ status: 'canceled' });
    expect(ledger.payments.get(paid.body.data.paymentId)).toMatchObject({ status: 'verified' });
    const report = await reconcile(server.ctx.db, server.ctx.store);
    expect(report.differences).toEqual([]);
    expect(report.replayed).toMatchObject({ activeSubscribers: before.activeSubscribers - 1 });
  });

  it('an erasure from before this rule (no billing events after it) is closed by the verification and by the lifecycle pass', async () => {
    const verifiedFirst = await approvedMember(api);
    const paid = await submit(verifiedFirst);
    expect((await api.post(`/admin/payments/${paid.body.data.paymentId}/verify`, undefined, admin)).status).toBe(200);
    const pendingOne = await approvedMember(api);
    const open = await submit(pendingOne);
    // MemberErased appended as the old erasure did: nothing on billing's streams.
    for (const id of [verifiedFirst.id, pendingOne.id]) {
      const at = server.clock.now().toISOString();
      const version = (await server.ctx.store.readStream(`user-${id}`)).length;
      await server.ctx.store.append(
        `user-${id}`,
        [{ type: 'MemberErased', data: { userId: id, erasedBy: id, erasedAt: at, requestedBy: 'member', reason: null } }],
        { expectedVersion: version, metadata: { actorId: id, at } },
      );
    }
    const refused = await api.post(`/admin/payments/${open.body.data.paymentId}/verify`, undefined, admin);
    expect(refused).toMatchObject({ status: 409, body: { error: CANCELED } });
    expect(await subscriptionEvents(pendingOne.id)).toEqual([]);
    await runLifecycle(server.ctx);
    expect(await subscriptionEvents(verifiedFirst.id)).toEqual([
      { type: 'SubscriptionActivated', reason: undefined },
      { type: 'SubscriptionCanceled', reason: 'account_erased' },
    ]);
    // A second pass adds nothing.
    const head = (await server.ctx.store.readStream(`subscription-${verifiedFirst.id}`)).length;
    await runLifecycle(server.ctx);
    expect((await server.ctx.store.readStream(`subscription-${verifiedFirst.id}`)).length).toBe(head);
    expect((await reconcile(server.ctx.db, server.ctx.store)).differences).toEqual([]);
  });
});
