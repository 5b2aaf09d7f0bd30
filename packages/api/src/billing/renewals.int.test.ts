/**
 * Renewals on SQLite and PostgreSQL (issue 38 item 5): a subscription entering the notice window
 * gets a renewal payment request, mailed with its amount, address and payment link; the member is
 * reminded the day before the end and when it goes past due; paying it renews from the old end,
 * early or late; canceling at period end closes it and reactivating opens it again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';
import { billingTestKit, HASH, type Member, seedMember } from './billing.testkit.js';
import { periodEnd } from './plans.js';
import { runLifecycle } from './subscriptions.service.js';

const DAY = 86_400_000;
let hashes = 5000;

forEachStore('billing: renewals', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  const clock = new TestClock(new Date('2026-03-01T09:00:00.000Z'));
  beforeAll(async () => {
    server = await startTestServer(kind, { clock, site: { renewals: { noticeDays: 7 } } });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  /** Submits an annual payment with a fresh hash and verifies it; answers the subscription. */
  async function payAnnual(m: Member) {
    const s = await kit.submit(m, { transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    const v = await kit.verify(s.body.data.paymentId);
    expect(v.status).toBe(200);
    return { paymentId: s.body.data.paymentId as string, subscription: v.body.data.subscription };
  }
  const current = async (m: Member) => (await kit.subscription(m)).body.data;
  const mailSubjects = async (m: Member) => (await mailsTo(server, m.email)).map((x) => x.subject);

  it('opens inside the notice window, once, mailed; the intent answers it; paid early, the period runs on from the old end', async () => {
    clock.set('2026-03-01T09:00:00.000Z');
    const m = await seedMember(server);
    const { subscription } = await payAnnual(m);
    const end = subscription.currentPeriodEnd as string;
    expect(end).toBe('2027-03-01T09:00:00.000Z');
    expect((await current(m)).renewal).toBeNull();

    // A day before the window: nothing opens.
    clock.set(new Date(Date.parse(end) - 8 * DAY));
    await runLifecycle(server.ctx);
    expect((await current(m)).renewal).toBeNull();

    // Inside it: one renewal request, for the plan's price, due at the period's end, payable until end + grace.
    clock.set(new Date(Date.parse(end) - 7 * DAY + 60_000));
    await runLifecycle(server.ctx);
    const renewal = (await current(m)).renewal;
    expect(renewal).toMatchObject({
      planType: 'annual',
      status: 'requested',
      btcAmount: '0.005',
      amountSats: 500_000,
      dueAt: end,
      expiresAt: new Date(Date.parse(end) + server.ctx.env.GRACE_PERIOD_DAYS * DAY).toISOString(),
    });
    expect(renewal.address).toEqual(expect.any(String));
    expect(renewal.bip21Uri).toMatch(/^bitcoin:/);
    await runLifecycle(server.ctx);
    const requests = await server.ctx.db.all<{ id: string }>(
      "SELECT id FROM billing_payments WHERE user_id = ? AND renewal_subscription_id IS NOT NULL AND status = 'requested'",
      [m.id],
    );
    expect(requests.map((r) => r.id)).toEqual([renewal.paymentId]);
    const mail = (await mailsTo(server, m.email)).find((x) => x.subject.includes('renewal due on'));
    expect(mail?.text_body).toContain(`Amount: 0.005 BTC`);
    expect(mail?.text_body).toContain(`Address: ${renewal.address}`);
    expect(mail?.text_body).toContain(renewal.bip21Uri);
    // What the pricing page gets for that plan while the renewal is open: the renewal itself.
    const intent = await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' }, m.token);
    expect(intent).toMatchObject({ status: 200, body: { data: { paymentId: renewal.paymentId } } });

    // Paid six days early: the new period starts at the old end, not today.
    const paid = await kit.submit(m, { transactionHash: HASH(hashes++) });
    expect(paid.body.data.paymentId).toBe(renewal.paymentId);
    expect((await kit.verify(renewal.paymentId)).status).toBe(200);
    const renewed = await current(m);
    expect(renewed).toMatchObject({ status: 'active', currentPeriodEnd: periodEnd(end, 'annual'), renewal: null });
    const types = (await server.ctx.store.readStream(`subscription-${m.id}`)).map((e) => e.type);
    expect(types).toEqual(['SubscriptionActivated', 'SubscriptionRenewed']);
  });

  it('reminds the day before the end and when past due (each once); paid late in the grace period, it still runs from the old end', async () => {
    clock.set('2026-04-10T12:00:00.000Z');
    const m = await seedMember(server);
    const end = (await payAnnual(m)).subscription.currentPeriodEnd as string;
    clock.set(new Date(Date.parse(end) - 3 * DAY));
    await runLifecycle(server.ctx);
    const renewal = (await current(m)).renewal;
    expect(renewal).toMatchObject({ status: 'requested' });

    clock.set(new Date(Date.parse(end) - DAY + 60_000));
    await runLifecycle(server.ctx);
    await runLifecycle(server.ctx);
    expect((await mailSubjects(m)).filter((s) => s.includes('due tomorrow'))).toHaveLength(1);

    clock.set(new Date(Date.parse(end) + 60_000));
    await runLifecycle(server.ctx);
    await runLifecycle(server.ctx);
    expect(await current(m)).toMatchObject({ status: 'past_due', renewal: { paymentId: renewal.paymentId } });
    const overdue = (await mailsTo(server, m.email)).filter((x) => x.subject.includes('overdue'));
    expect(overdue).toHaveLength(1);
    expect(overdue[0]?.text_body).toContain('You keep access until');

    // Two days late: still renewed from the old end.
    clock.set(new Date(Date.parse(end) + 2 * DAY));
    expect((await kit.submit(m, { transactionHash: HASH(hashes++) })).status).toBe(201);
    expect((await kit.verify(renewal.paymentId)).status).toBe(200);
    expect(await current(m)).toMatchObject({ status: 'active', currentPeriodEnd: periodEnd(end, 'annual') });
    const history = (await server.ctx.store.readStream(`payment-${renewal.paymentId}`)).map((e) => e.type);
    expect(history).toEqual([
      'PaymentRequested',
      'PaymentRenewalReminded',
      'PaymentRenewalReminded',
      'PaymentSubmitted',
      'PaymentVerified',
    ]);
  });

  it('canceling at period end closes the open renewal (nothing reopens it); reactivating opens a new one', async () => {
    clock.set('2026-05-20T08:00:00.000Z');
    const m = await seedMember(server);
    const end = (await payAnnual(m)).subscription.currentPeriodEnd as string;
    clock.set(new Date(Date.parse(end) - 5 * DAY));
    await runLifecycle(server.ctx);
    const first = (await current(m)).renewal;
    expect(first).toMatchObject({ status: 'requested' });

    expect((await kit.api.post('/subscriptions/cancel', {}, m.token)).status).toBe(200);
    expect((await current(m)).renewal).toBeNull();
    const closed = (await server.ctx.store.readStream(`payment-${first.paymentId}`)).at(-1);
    expect(closed).toMatchObject({ type: 'PaymentCanceled', data: { reason: 'subscription_canceled', previousStatus: 'requested' } });
    await runLifecycle(server.ctx);
    expect((await current(m)).renewal).toBeNull();

    const sub = await current(m);
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, m.token)).status).toBe(200);
    await runLifecycle(server.ctx);
    const second = (await current(m)).renewal;
    expect(second).toMatchObject({ status: 'requested', dueAt: end });
    expect(second.paymentId).not.toBe(first.paymentId);
  });
});
