/**
 * Erasure by crypto-shredding, end to end over real HTTP on each store: a member with a payment,
 * a subscription, a second factor and mail exports their data, deletes their account, and then
 * their e-mail, names and date of birth are found nowhere — not in the SQLite file and its WAL,
 * not in a `pg_dump` of the PostgreSQL database (Debian's pg_dump), not in the dev outbox, not in
 * the log lines written after the erasure — while the chain verifies, the payment totals are
 * unchanged, the subscription replay shows the member's subscription ended with the account, a
 * rebuild gives the same read models, and the address can register again.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, randomBytes, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { storeBytes } from '../../test/storeBytes.js';
import { replayLedger } from '../audit/ledger.js';
import { paymentHistory } from '../audit/paymentHistory.js';
import { verifyChain } from '../audit/verifyChain.js';
import { rebuildProjections } from '../eventstore/projections.js';
import { adminLogin, login, registerMember } from '../identity/identity.testkit.js';
import { totpCode } from '../identity/totp.js';
import { wrongTotpCode } from '../identity/totp.testkit.js';

type Api = ReturnType<typeof apiClient>;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function outboxText(server: TestServer): string {
  const dir = path.join(server.store.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), 'latin1'))
    .join('\n');
}

async function readModels(server: TestServer) {
  const q = (sql: string) => server.ctx.db.all(sql);
  return {
    users: await q('SELECT * FROM users ORDER BY id'),
    payments: await q('SELECT * FROM billing_payments ORDER BY id'),
    subscriptions: await q('SELECT * FROM billing_subscriptions ORDER BY user_id'),
    secondFactors: await q('SELECT * FROM second_factors ORDER BY user_id'),
  };
}

async function auditFigures(server: TestServer) {
  const rows = await collect(paymentHistory(server.ctx.store.streamAll({ batchSize: 100 })));
  const ledger = await replayLedger(server.ctx.store.streamAll({ batchSize: 100 }));
  const sats = (action: string) => rows.filter((r) => r.action === action).reduce((s, r) => s + r.amountSats, 0);
  return {
    rows: rows.length,
    verifiedSats: sats('verified'),
    submittedSats: sats('submitted'),
    txHashes: rows.map((r) => r.txHash),
    subscriptions: [...ledger.subscriptions.values()].map(({ position: _p, at: _a, ...s }) => s),
  };
}

forEachStore('erasure by crypto-shredding', (kind) => {
  let server: TestServer;
  let api: Api;
  const logFile = path.join(tmpDir('members-log-'), 'server.log');
  const tag = randomBytes(4).toString('hex');
  const person = {
    email: `Shred.Me.${tag}@Example.test`,
    firstName: `Zebulon${tag}`,
    lastName: `Quixote${tag}`,
    dateOfBirth: '1987-03-14',
  };
  const needles = [person.email, person.email.toLowerCase(), person.firstName, person.lastName, person.dateOfBirth];
  const txHash = `${tag}${'c'.repeat(56)}`;

  beforeAll(async () => {
    server = await startTestServer(kind, { logger: pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true })) });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  });

  it('erases a paying member with a second factor: no personal byte left, audit unchanged, address free again', async () => {
    // ── A member with everything: approval, payment with a tx hash, subscription, second factor, mail.
    const member = await registerMember(api, person);
    const admin = await adminLogin(api);
    expect((await api.post(`/admin/users/${member.id}/approve`, undefined, admin.token)).status).toBe(200);
    const { token } = await login(api, person.email, member.password);
    const submitted = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId: member.id, planType: 'annual', btcAmount: '0.005', transactionHash: txHash },
      token,
    );
    expect(submitted.status).toBe(201);
    const paymentId = submitted.body.data.paymentId ?? submitted.body.data.payment?.id ?? submitted.body.data.id;
    expect((await api.post(`/admin/payments/${paymentId}/verify`, undefined, admin.token)).status).toBe(200);
    const enrolled = await api.post('/auth/mfa/enroll', undefined, token);
    const secret = enrolled.body.data.secret as string;
    expect((await api.post('/auth/mfa/enroll/confirm', { code: totpCode(secret, server.clock.now()) }, token)).status).toBe(200);
    server.clock.advance(30_000);
    await server.subscribers.drain();

    // ── The log never held the personal fields in clear, even before erasure.
    const sealed = await server.ctx.db.all<{ data: string }>('SELECT data FROM events');
    expect(sealed.some((r) => r.data.includes(member.id))).toBe(true); // the search finds what is there
    for (const n of needles) expect(sealed.some((r) => r.data.includes(n))).toBe(false);

    // ── Export: JSON attachment and HTML, everything about the member, no secrets.
    const exported = await fetch(`${server.url}/api/users/me/export`, { headers: { authorization: `Bearer ${token}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"$/);
    const doc = (await exported.json()) as Record<string, any>;
    expect(doc.member).toMatchObject({ id: member.id, email: person.email, firstName: person.firstName, dateOfBirth: person.dateOfBirth });
    expect(doc.payments).toEqual([
      expect.objectContaining({ id: paymentId, status: 'verified', transactionHash: txHash, amountSats: 500000 }),
    ]);
    expect(doc.subscriptionPeriods.map((p: { event: string }) => p.event)).toEqual(['SubscriptionActivated']);
    expect(doc.accountHistory.map((e: { event: string }) => e.event)).toEqual(
      expect.arrayContaining(['UserRegistered', 'UserApproved', 'SecondFactorEnrolled']),
    );
    expect(doc.secondFactor).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect(doc.sessions.length).toBeGreaterThan(0);
    expect(JSON.stringify(doc)).not.toMatch(/passwordHash|recoveryCodeHashes|\$argon2/);
    expect(JSON.stringify(doc)).not.toContain(secret);
    const html = await fetch(`${server.url}/api/users/me/export?format=html`, { headers: { authorization: `Bearer ${token}` } });
    expect(html.headers.get('content-type')).toContain('text/html');
    const page = await html.text();
    for (const v of [person.email, person.firstName, txHash]) expect(page).toContain(v);
    expect((await api.call('GET', '/users/me/export?format=xml', { token })).status).toBe(400);
    expect((await api.get('/users/me/export')).status).toBe(401);

    // The byte search finds the member while they exist (the read models hold them in clear).
    expect(storeBytes(server.store)).toContain(person.email);

    const before = { audit: await auditFigures(server), head: (await verifyChain(server.ctx.rawStore)) as { ok: true; events: number } };
    expect(before.head.ok).toBe(true);

    // ── Refusals: confirmation 400; password 401; second factor missing or wrong 401. Nothing erased.
    const del = (body: unknown) => api.call('DELETE', '/users/me', { body, token });
    expect((await del({ password: member.password, confirmation: 'delete' })).status).toBe(400);
    expect((await del({ password: 'wrong-password', confirmation: 'DELETE' })).body).toEqual({
      success: false,
      error: 'Incorrect password',
      code: 'auth.wrong_password',
    });
    const noCode = await del({ password: member.password, confirmation: 'DELETE' });
    expect(noCode.status).toBe(401);
    expect(noCode.body.error).toMatch(/authenticator/);
    const wrongCode = await del({
      password: member.password,
      code: wrongTotpCode(secret, server.clock.now()),
      confirmation: 'DELETE',
    });
    expect(wrongCode.status).toBe(401);
    expect(
      (await server.ctx.db.get<{ erased_at: string | null }>('SELECT erased_at FROM users WHERE id = ?', [member.id]))?.erased_at,
    ).toBeNull();

    // ── Erasure. The log is read from here on: the mail already queued for the member has gone out
    // (its log line names the address, before the erasure), so every line after this is the erasure's or later.
    for (let i = 0; i < 100; i++) {
      const unsent = await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NULL');
      if (Number(unsent?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The outbox holds the member's mail now, so its search after the erasure finds what is there.
    expect(outboxText(server).toLowerCase()).toContain(person.email.toLowerCase());
    const logOffset = fs.statSync(logFile).size;
    const erased = await del({ password: member.password, code: totpCode(secret, server.clock.now()), confirmation: 'DELETE' });
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ success: true, data: { erased: true } });

    // The member is gone from every door: token, login, sessions.
    expect((await api.get('/users/profile', token)).status).toBe(401);
    expect((await api.post('/auth/login', { email: person.email, password: member.password })).status).toBe(401);
    expect((await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM refresh_sessions WHERE user_id = ?', [member.id]))?.n).toBe(
      0,
    );
    expect(await server.ctx.db.get('SELECT 1 FROM second_factor_secrets WHERE user_id = ?', [member.id])).toBeUndefined();
    expect((await api.call('DELETE', '/users/me', { body: { password: member.password, confirmation: 'DELETE' }, token })).status).toBe(
      401,
    );

    // Events decode to placeholders everywhere; payments remain, shown as the erased member.
    const label = `erased member ${member.id.slice(0, 8)}`;
    const own = await server.ctx.store.readStream(`user-${member.id}`);
    expect(own[0]?.data).toMatchObject({ email: label, firstName: 'erased', lastName: `member ${member.id.slice(0, 8)}`, dateOfBirth: '' });
    expect(own.at(-1)).toMatchObject({ type: 'MemberErased', data: { userId: member.id, requestedBy: 'member', reason: null } });
    const pending = await api.get('/admin/pending-payments', admin.token);
    expect(pending.status).toBe(200);
    // The money is unchanged; the subscription the member paid for ended with the account
    // (SubscriptionCanceled, reason account_erased), which is the one change the replay shows.
    const after = await auditFigures(server);
    expect(after).toEqual({
      ...before.audit,
      subscriptions: before.audit.subscriptions.map((sub) => (sub.userId === member.id ? { ...sub, status: 'canceled' } : sub)),
    });
    expect(before.audit.subscriptions.find((sub) => sub.userId === member.id)).toMatchObject({ status: 'active' });
    const rows = await collect(paymentHistory(server.ctx.store.streamAll()));
    expect(rows.filter((r) => r.userId === member.id).map((r) => r.memberEmail)).toEqual(
      rows.filter((r) => r.userId === member.id).map(() => label),
    );
    const payment = await server.ctx.db.get<{ user_email: string; status: string; tx_hash: string; amount_sats: number }>(
      'SELECT user_email, status, tx_hash, amount_sats FROM billing_payments WHERE id = ?',
      [paymentId],
    );
    expect(payment).toMatchObject({ user_email: label, status: 'verified', tx_hash: txHash });
    const verified = await verifyChain(server.ctx.rawStore);
    expect(verified).toMatchObject({ ok: true, events: before.head.events + 2 }); // MemberErased, SubscriptionCanceled
    const reconcile = await api.get('/admin/audit/reconcile', admin.token);
    expect(reconcile.body.data).toMatchObject({ ok: true });

    // A rebuild gives the same read models: the erased member stays erased.
    const live = await readModels(server);
    await rebuildProjections(server.ctx.db, server.ctx.store, server.ctx.projections);
    expect(await readModels(server)).toEqual(live);

    // Exercise the admin side after erasure (log lines, reports) before looking at the bytes: the
    // payment report (CSV, which the JSON client cannot read) shows the payment under the placeholder.
    const csv = await fetch(`${server.url}/api/admin/audit/payments?format=csv`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const report = await csv.text();
    expect(report).toContain(txHash);
    expect(report).toContain(label);
    for (const n of needles) expect({ needle: n, inReport: report.includes(n) }).toEqual({ needle: n, inReport: false });
    await server.subscribers.drain();
    if (server.ctx.db.dialect === 'sqlite') await server.ctx.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');

    // ── The proof: no personal byte anywhere.
    const bytes = storeBytes(server.store);
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(bytes).toContain(txHash); // the payment record remains, in clear
    const outbox = outboxText(server);
    const logsAfter = fs.readFileSync(logFile, 'latin1').slice(logOffset);
    expect(logsAfter).toContain('member erased');
    for (const n of needles) {
      expect({ needle: n, inStore: bytes.includes(n) }).toEqual({ needle: n, inStore: false });
      expect({ needle: n, inOutbox: outbox.includes(n) }).toEqual({ needle: n, inOutbox: false });
      expect({ needle: n, inLogs: logsAfter.includes(n) }).toEqual({ needle: n, inLogs: false });
    }

    // ── The address is free: it registers again, a new member with a new id.
    const again = await api.post('/auth/register', { ...person, password: 'another-password-1', agreeToTerms: true });
    expect(again.status).toBe(201);
    expect(again.body.data.user.id).not.toBe(member.id);
    expect(again.body.data.user.email).toBe(person.email);
    const rebuiltAgain = await readModels(server);
    await rebuildProjections(server.ctx.db, server.ctx.store, server.ctx.projections);
    expect(await readModels(server)).toEqual(rebuiltAgain);
  });

  it('lets an admin erase a member with the reason recorded; members and visitors may not; admins cannot be erased', async () => {
    const member = await registerMember(api);
    const other = await registerMember(api);
    const admin = await adminLogin(api);
    expect((await api.post(`/admin/users/${other.id}/approve`, undefined, admin.token)).status).toBe(200);
    const otherSession = await login(api, other.email, other.password);
    expect((await api.post(`/admin/users/${member.id}/erase`, { reason: 'verified request #42' }, otherSession.token)).status).toBe(403);
    expect((await api.post(`/admin/users/${member.id}/erase`, { reason: 'x' })).status).toBe(401);
    expect((await api.post(`/admin/users/${member.id}/erase`, {}, admin.token)).status).toBe(400);
    expect((await api.post(`/admin/users/${admin.user.id}/erase`, { reason: 'no' }, admin.token)).status).toBe(409);
    const res = await api.post(`/admin/users/${member.id}/erase`, { reason: 'verified request #42' }, admin.token);
    expect(res.body).toEqual({ success: true, data: { erased: true } });
    const last = (await server.ctx.store.readStream(`user-${member.id}`)).at(-1);
    expect(last).toMatchObject({
      type: 'MemberErased',
      data: { reason: 'verified request #42', requestedBy: 'admin', erasedBy: admin.user.id },
    });
    expect((await api.post(`/admin/users/${member.id}/erase`, { reason: 'again' }, admin.token)).status).toBe(404);
    expect((await api.post(`/admin/users/${member.id}/approve`, undefined, admin.token)).status).toBe(404);
    const pendingList = await api.get('/admin/users/pending', admin.token);
    expect(JSON.stringify(pendingList.body)).not.toContain(member.email);
  });
});
