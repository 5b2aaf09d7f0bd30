import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { TestClock } from '../shared/clock.testkit.js';
import { billingTestKit, HASH, type Member, seedMember } from './billing.testkit.js';
import { runLifecycle, startLifecycleScheduler } from './subscriptions.service.js';

const DAY = 86_400_000;
let hashes = 1000;

forEachStore('billing: subscriptions', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  beforeAll(async () => {
    server = await startTestServer(kind, { clock: new TestClock(new Date('2026-01-31T10:00:00.000Z')) });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  async function pay(m: Member, planType: 'monthly' | 'annual' = 'monthly') {
    const btcAmount = planType === 'monthly' ? '0.0005' : '0.005';
    const s = await kit.submit(m, { planType, btcAmount, transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    const v = await kit.verify(s.body.data.paymentId);
    expect(v.status).toBe(200);
    return v.body.data.subscription;
  }
  const streamTypes = async (m: Member) => (await server.ctx.store.readStream(`subscription-${m.id}`)).map((e) => e.type);

  it('has no subscription before paying (data null), and needs a login', async () => {
    const m = await seedMember(server);
    expect(await kit.subscription(m)).toMatchObject({ status: 200, body: { success: true, data: null } });
    expect((await kit.api.get('/subscriptions/current')).status).toBe(401);
    expect(await kit.user(m)).toEqual({ membership_status: 'inactive', subscription_status: null });
  });

  it('a verified payment starts a calendar period; both read routes give the Subscription entity', async () => {
    const m = await seedMember(server);
    const now = server.clock.now().toISOString();
    await pay(m, 'monthly');
    const a = await kit.subscription(m);
    expect(a.body.data).toEqual({
      id: expect.any(String),
      planType: 'monthly',
      status: 'active',
      cancelAtPeriodEnd: false,
      amount: 29.99,
      btcAmount: '0.0005',
      currentPeriodStart: now,
      currentPeriodEnd: '2026-02-28T10:00:00.000Z',
      renewal: null,
    });
    expect((await kit.api.get('/subscriptions/current', m.token)).body.data).toEqual(a.body.data);
    expect(await kit.user(m)).toEqual({ membership_status: 'active', subscription_status: 'active' });
  });

  it('cancel sets cancel-at-period-end once; reactivate clears it once; wrong ids are 404', async () => {
    const m = await seedMember(server);
    const other = await seedMember(server);
    const none = await kit.api.post('/subscriptions/cancel', {}, m.token);
    expect(none.status).toBe(404);
    const sub = await pay(m, 'annual');
    const otherSub = await pay(other, 'monthly');
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, m.token)).body.error).toBe(
      'Your subscription is not set to cancel, so there is nothing to reactivate',
    );
    const c1 = await kit.api.post('/subscriptions/cancel', undefined, m.token);
    expect(c1).toMatchObject({ status: 200, body: { data: { id: sub.id, status: 'active', cancelAtPeriodEnd: true } } });
    expect(await kit.user(m)).toEqual({ membership_status: 'active', subscription_status: 'active' });
    const c2 = await kit.api.post('/subscriptions/cancel', {}, m.token);
    expect(c2).toMatchObject({
      status: 409,
      body: { error: 'Your subscription is already set to cancel at the end of the current period' },
    });
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: otherSub.id }, m.token)).status).toBe(404);
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, other.token)).status).toBe(404);
    expect((await kit.api.post('/payments/reactivate-subscription', {}, m.token)).body.error).toMatch(/^subscriptionId: /);
    expect((await kit.api.post('/subscriptions/cancel', { subscriptionId: otherSub.id }, m.token)).status).toBe(404);
    const r = await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, m.token);
    expect(r).toMatchObject({ status: 200, body: { data: { id: sub.id, cancelAtPeriodEnd: false, status: 'active' } } });
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, m.token)).status).toBe(409);
    expect((await kit.subscription(other)).body.data.cancelAtPeriodEnd).toBe(false);
    const events = await server.ctx.store.readStream(`subscription-${m.id}`);
    expect(events.find((e) => e.type === 'SubscriptionCancelRequested')?.metadata.actorId).toBe(m.id);
  });

  it('renewal extends from the current end, never shortening; a second plan extends by a year', async () => {
    const m = await seedMember(server);
    const first = await pay(m, 'monthly');
    const end1 = first.currentPeriodEnd;
    server.clock.advance(2 * DAY);
    const second = await pay(m, 'monthly');
    expect(second).toMatchObject({ id: first.id, status: 'active', currentPeriodStart: first.currentPeriodStart });
    expect(second.currentPeriodEnd).toBe(
      new Date(Date.UTC(2026, new Date(end1).getUTCMonth() + 1, new Date(end1).getUTCDate(), 10)).toISOString(),
    );
    const third = await pay(m, 'annual');
    expect(third.planType).toBe('annual');
    expect(new Date(third.currentPeriodEnd).getUTCFullYear()).toBe(new Date(second.currentPeriodEnd).getUTCFullYear() + 1);
    expect(await streamTypes(m)).toEqual(['SubscriptionActivated', 'SubscriptionRenewed', 'SubscriptionRenewed']);
  });

  it('time: past due for the grace period (access kept), then unpaid (access ends); a new payment starts anew', async () => {
    const m = await seedMember(server);
    const sub = await pay(m, 'monthly');
    const end = new Date(sub.currentPeriodEnd).getTime();
    server.clock.set(new Date(end - 60_000));
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data.status).toBe('active');
    server.clock.set(new Date(end + 60_000));
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data).toMatchObject({
      status: 'past_due',
      gracePeriodEnd: new Date(end + 3 * DAY).toISOString(),
    });
    expect(await kit.user(m)).toEqual({ membership_status: 'active', subscription_status: 'past_due' });
    expect((await kit.api.post('/subscriptions/cancel', {}, m.token)).status).toBe(409);
    server.clock.set(new Date(end + 3 * DAY));
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data.status).toBe('unpaid');
    expect(await kit.user(m)).toEqual({ membership_status: 'inactive', subscription_status: 'unpaid' });
    await runLifecycle(server.ctx); // nothing more to do
    expect(await streamTypes(m)).toEqual(['SubscriptionActivated', 'SubscriptionPastDue', 'SubscriptionUnpaid']);
    const again = await pay(m, 'monthly');
    expect(again.id).not.toBe(sub.id);
    expect(again).toMatchObject({ status: 'active', currentPeriodStart: server.clock.now().toISOString() });
    expect(await kit.user(m)).toEqual({ membership_status: 'active', subscription_status: 'active' });
    const scheduled = (await server.ctx.store.readStream(`subscription-${m.id}`)).find((e) => e.type === 'SubscriptionPastDue');
    expect(scheduled?.metadata).toMatchObject({ actorId: null, actor: 'billing-scheduler' });
  });

  it('time: a past-due subscription paid within grace renews from its old end', async () => {
    const m = await seedMember(server);
    const sub = await pay(m, 'monthly');
    server.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + DAY));
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data.status).toBe('past_due');
    const renewed = await pay(m, 'monthly');
    expect(renewed).toMatchObject({ id: sub.id, status: 'active' });
    expect(new Date(renewed.currentPeriodEnd).getUTCMonth()).toBe((new Date(sub.currentPeriodEnd).getUTCMonth() + 1) % 12);
    expect(renewed).not.toHaveProperty('gracePeriodEnd');
  });

  it('time: a canceling subscription ends at period end and cannot be reactivated afterwards', async () => {
    const m = await seedMember(server);
    const sub = await pay(m, 'monthly');
    await kit.api.post('/subscriptions/cancel', {}, m.token);
    server.clock.set(new Date(sub.currentPeriodEnd));
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data).toMatchObject({ id: sub.id, status: 'canceled', cancelAtPeriodEnd: false });
    expect(await kit.user(m)).toEqual({ membership_status: 'inactive', subscription_status: 'canceled' });
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, m.token)).status).toBe(409);
    expect(await streamTypes(m)).toEqual(['SubscriptionActivated', 'SubscriptionCancelRequested', 'SubscriptionCanceled']);
  });

  it('the scheduler started with the server runs the same passes on its own', async () => {
    const m = await seedMember(server);
    const sub = await pay(m, 'monthly');
    server.clock.set(new Date(new Date(sub.currentPeriodEnd).getTime() + 1000));
    const scheduler = startLifecycleScheduler(server.ctx, 20);
    try {
      await expect.poll(async () => (await kit.subscription(m)).body.data.status, { timeout: 5000 }).toBe('past_due');
    } finally {
      await scheduler.stop();
    }
  });

  it('a verified payment whose activation was never appended is applied by the next pass', async () => {
    const m = await seedMember(server);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(hashes++) });
    // Simulate a crash between the two appends: verify on the payment stream only.
    const now = server.clock.now().toISOString();
    await server.ctx.store.append(
      `payment-${s.body.data.paymentId}`,
      [
        {
          type: 'PaymentVerified',
          data: {
            paymentId: s.body.data.paymentId,
            userId: m.id,
            planType: 'monthly',
            amountSats: 50000,
            txHash: null,
            verifiedBy: 'x',
            verifiedAt: now,
          },
        },
      ],
      { expectedVersion: 1, metadata: { actorId: 'x', at: now } },
    );
    expect((await kit.subscription(m)).body.data).toBeNull();
    await runLifecycle(server.ctx);
    expect((await kit.subscription(m)).body.data.status).toBe('active');
    expect((await runLifecycle(server.ctx)).applied).toBe(0);
  });
});
