import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { billingTestKit, HASH, seedMember } from './billing.testkit.js';

const APPROVAL = 'Your account must be approved before subscribing. Please wait for admin approval.';
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

forEachStore('billing: payments', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  it('GET /subscriptions/plans lists both plans from config, exact amounts, no login needed', async () => {
    const r = await kit.api.get('/subscriptions/plans');
    expect(r.status).toBe(200);
    expect(r.body.data.plans).toEqual([
      expect.objectContaining({
        id: 'monthly',
        name: 'Monthly Premium',
        btcAmount: '0.0005',
        amountSats: 50000,
        usdPrice: 29.99,
        mostPopular: false,
      }),
      expect.objectContaining({
        id: 'annual',
        btcAmount: '0.005',
        amountSats: 500000,
        usdPrice: 299.99,
        formerBtcAmount: '0.006',
        formerUsdPrice: 359.88,
        mostPopular: true,
      }),
    ]);
    expect(r.body.data.plans[1].features).toHaveLength(9);
  });

  it('create-subscription-intent gives a BIP21 request, the same one again while open, a new one after expiry', async () => {
    const m = await seedMember(server);
    const first = await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' }, m.token);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      planType: 'annual',
      status: 'requested',
      address: server.site.bitcoin.address,
      btcAmount: '0.005',
      amountSats: 500000,
      bip21Uri: `bitcoin:${server.site.bitcoin.address}?amount=0.005&label=Velvet%20Rose%20Annual%20Premium`,
    });
    const again = await kit.api.post('/subscriptions/create', { planId: 'annual', paymentMethodId: 'ignored' }, m.token);
    expect(again.status).toBe(200);
    expect(again.body.data.paymentId).toBe(first.body.data.paymentId);
    const monthly = await kit.api.post('/payments/create-subscription-intent', { planType: 'monthly' }, m.token);
    expect(monthly.body.data.paymentId).not.toBe(first.body.data.paymentId);
    server.clock.advance(25 * 3600_000);
    const later = await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' }, m.token);
    expect(later.status).toBe(201);
    expect(later.body.data.paymentId).not.toBe(first.body.data.paymentId);
  });

  it('intent: login, approval and plan are checked', async () => {
    const pending = await seedMember(server, { approved: false });
    const m = await seedMember(server);
    expect((await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' })).status).toBe(401);
    const r = await kit.api.post('/payments/create-subscription-intent', { planType: 'annual' }, pending.token);
    expect(r).toMatchObject({ status: 403, body: { success: false, error: APPROVAL } });
    const bad = await kit.api.post('/payments/create-subscription-intent', { planType: 'weekly' }, m.token);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^planType: /);
  });

  it('submit: every rule of the issue', async () => {
    const m = await seedMember(server);
    const other = await seedMember(server);
    const unapproved = await seedMember(server, { approved: false });
    expect((await kit.submit(m, { userId: other.id })).status).toBe(403);
    expect(await kit.submit(unapproved)).toMatchObject({ status: 403, body: { error: APPROVAL } });
    expect((await kit.submit(m, { planType: 'lifetime' })).body.error).toMatch(/^planType: /);
    const wrong = await kit.submit(m, { btcAmount: '0.0005' });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'btcAmount: must be exactly 0.005 BTC for the Annual Premium plan' } });
    for (const amount of ['abc', '0.005 BTC', '1e-3', '-0.005', '0.0050000001', ''])
      expect((await kit.submit(m, { btcAmount: amount })).status).toBe(400);
    expect((await kit.submit(m, { btcAmount: undefined })).body.error).toMatch(/^btcAmount: /);
    for (const h of ['abc', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 42])
      expect((await kit.submit(m, { transactionHash: h })).body.error).toMatch(/^transactionHash: /);
    expect((await kit.pending()).body.data.payments.filter((p: { userId: string }) => p.userId === m.id)).toHaveLength(0);

    const hash = `  ${HASH(1).toUpperCase()}  `;
    const ok = await kit.submit(m, { btcAmount: '0.00500000', transactionHash: hash });
    expect(ok).toMatchObject({
      status: 201,
      body: { success: true, data: { status: 'pending', planType: 'annual', transactionHash: HASH(1) } },
    });
    const dup = await kit.submit(m, { transactionHash: HASH(2) });
    expect(dup).toMatchObject({ status: 409, body: { error: expect.stringMatching(/pending Annual payment/) } });
    const reused = await kit.submit(other, { transactionHash: HASH(1) });
    expect(reused).toMatchObject({ status: 409, body: { error: 'This transaction hash has already been used for another payment' } });
    const monthlyNoHash = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: '   ' });
    expect(monthlyNoHash.status).toBe(201);
    expect(monthlyNoHash.body.data).not.toHaveProperty('transactionHash');
  });

  it('confirm-subscription is the submit call, userId defaulting to the caller', async () => {
    const m = await seedMember(server);
    const r = await kit.api.post(
      '/payments/confirm-subscription',
      { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(50) },
      m.token,
    );
    expect(r.status).toBe(201);
    expect((await kit.pending()).body.data.payments).toContainEqual(
      expect.objectContaining({ id: r.body.data.paymentId, userEmail: m.email }),
    );
  });

  it('submitting after an intent pays that request (its address shows in the admin list)', async () => {
    const m = await seedMember(server);
    const intent = await kit.api.post('/payments/create-subscription-intent', { planType: 'monthly' }, m.token);
    const r = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(60) });
    expect(r.body.data.paymentId).toBe(intent.body.data.paymentId);
    const row = (await kit.pending()).body.data.payments.find((p: { id: string }) => p.id === intent.body.data.paymentId);
    expect(row).toMatchObject({
      userEmail: m.email,
      planType: 'monthly',
      btcAmount: '0.0005',
      transactionHash: HASH(60),
      explorerUrl: `https://mempool.space/tx/${HASH(60)}`,
      address: server.site.bitcoin.address,
    });
  });

  it('admin pending list: admins only, oldest first, section 3 fields', async () => {
    const m = await seedMember(server);
    expect((await kit.api.get('/admin/pending-payments')).status).toBe(401);
    expect((await kit.api.get('/admin/pending-payments', m.token)).status).toBe(403);
    const list = (await kit.pending()).body.data.payments as { submittedDate: string }[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.map((p) => p.submittedDate)).toEqual([...list.map((p) => p.submittedDate)].sort());
    expect(Object.keys(list[0] as object)).toEqual(expect.arrayContaining(['id', 'userEmail', 'planType', 'btcAmount', 'submittedDate']));
  });

  it('verify activates once; verify again is a clear 409; unknown is 404; members are refused', async () => {
    const m = await seedMember(server);
    const paymentId = (await kit.submit(m, { transactionHash: HASH(70) })).body.data.paymentId;
    expect((await kit.api.post(`/admin/payments/${paymentId}/verify`, undefined, m.token)).status).toBe(403);
    const r = await kit.verify(paymentId);
    expect(r).toMatchObject({
      status: 200,
      body: { data: { status: 'verified', subscription: { status: 'active', planType: 'annual' } } },
    });
    expect(await kit.verify(paymentId)).toMatchObject({ status: 409, body: { error: 'This payment has already been verified' } });
    expect((await kit.verify('no-such-payment')).status).toBe(404);
    expect((await kit.verify('bad id!')).status).toBe(400);
    expect((await kit.pending()).body.data.payments.map((p: { id: string }) => p.id)).not.toContain(paymentId);
    await server.subscribers.drain();
    const mail = await server.ctx.db.get<{ subject: string; text_body: string }>(
      `SELECT * FROM mail_outbox WHERE to_address = ? AND key LIKE 'subscription-active:%'`,
      [m.email],
    );
    expect(mail?.subject).toMatch(/your subscription is active/);
  });

  it('20 concurrent verifies of one payment make one PaymentVerified and one activation', async () => {
    const m = await seedMember(server);
    const paymentId = (await kit.submit(m, { transactionHash: HASH(80) })).body.data.paymentId;
    const answers = await Promise.all(Array.from({ length: 20 }, () => kit.verify(paymentId)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    const events = await server.ctx.store.readAll({ limit: 100_000 });
    expect(events.filter((e) => e.type === 'PaymentVerified' && e.data.paymentId === paymentId)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'SubscriptionActivated' && e.data.paymentId === paymentId)).toHaveLength(1);
    expect(events.filter((e) => e.streamId === `subscription-${m.id}`)).toHaveLength(1);
  });

  it('reject needs a reason, e-mails the member, and cannot be verified afterwards', async () => {
    const m = await seedMember(server);
    const paymentId = (await kit.submit(m, { transactionHash: HASH(90) })).body.data.paymentId;
    const noReason = await kit.api.post(`/admin/payments/${paymentId}/reject`, {}, kit.admin);
    expect(noReason).toMatchObject({ status: 400, body: { error: 'reason: Please give a reason for rejecting the payment' } });
    const r = await kit.api.post(`/admin/payments/${paymentId}/reject`, { reason: 'No such transaction on chain' }, kit.admin);
    expect(r.status).toBe(200);
    expect((await kit.api.post(`/admin/payments/${paymentId}/reject`, { reason: 'again' }, kit.admin)).status).toBe(409);
    expect((await kit.verify(paymentId)).status).toBe(409);
    await server.subscribers.drain();
    const mail = await server.ctx.db.get<{ text_body: string }>(
      `SELECT text_body FROM mail_outbox WHERE to_address = ? AND key LIKE 'payment-rejected:%'`,
      [m.email],
    );
    expect(mail?.text_body).toContain('No such transaction on chain');
    // The member may submit the plan again (not the rejected hash).
    expect((await kit.submit(m, { transactionHash: HASH(90) })).status).toBe(409);
    expect((await kit.submit(m, { transactionHash: HASH(91) })).status).toBe(201);
  });

  it('concurrent submissions of one hash or one plan: exactly one wins (unique indexes)', async () => {
    const members = await Promise.all(Array.from({ length: 5 }, () => seedMember(server)));
    const sameHash = await Promise.all(members.map((m) => kit.submit(m, { transactionHash: HASH(100) })));
    expect(sameHash.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const one = members[0] as (typeof members)[number];
    const samePlan = await Promise.all(
      Array.from({ length: 5 }, (_, i) => kit.submit(one, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(200 + i) })),
    );
    expect(samePlan.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(samePlan.every((r) => r.status === 201 || /already|pending/.test(r.body.error ?? ''))).toBe(true);
  });
});

forEachStore('billing: xpub addresses', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      site: {
        bitcoin: {
          xpub: ZPUB,
          network: 'mainnet',
          explorerTxUrl: 'https://mempool.space/tx/{txid}',
          paymentRequestTtlHours: 24,
          confirmations: 1,
          autoVerify: false,
          underpaymentTolerancePercent: 0,
        },
      },
    });
  });
  afterAll(async () => server?.close());

  it('gives every payment request the next BIP84 address, never reused, even concurrently', async () => {
    const kit = await billingTestKit(server);
    const members = await Promise.all(Array.from({ length: 6 }, () => seedMember(server)));
    const first = await kit.api.post(
      '/payments/create-subscription-intent',
      { planType: 'annual' },
      (members[0] as { token: string }).token,
    );
    expect(first.body.data).toMatchObject({ address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' });
    const rest = await Promise.all(
      members.slice(1).map((m) => kit.api.post('/payments/create-subscription-intent', { planType: 'monthly' }, m.token)),
    );
    const addresses = [first, ...rest].map((r) => r.body.data.address);
    expect(new Set(addresses).size).toBe(6);
    expect(addresses).toContain('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    const allocated = (await server.ctx.store.readStream('address-allocator')).map((e) => e.data.index);
    expect(allocated).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('billing module shape', () => {
  it('exports runLifecycle and the stats', async () => {
    const mod = await import('./index.js');
    expect(typeof mod.runLifecycle).toBe('function');
    expect(typeof mod.billingStats).toBe('function');
  });
});
