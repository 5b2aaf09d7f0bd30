/**
 * A store written before crypto-shredding existed (personal fields in clear in the events) still
 * opens, verifies and serves; its members can log in and export; erasing one of them makes every
 * reader (read models, decoded events, audit reports, rebuilds) show placeholders through the key
 * tombstone — and, as the README says plainly, the clear bytes already in the hash-chained log stay.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, freshStore, startTestServer, type TestServer } from '../../test/harness.js';
import { paymentHistory } from '../audit/paymentHistory.js';
import { verifyChain } from '../audit/verifyChain.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import { rebuildProjections } from '../eventstore/projections.js';
import { createSqlEventStore } from '../eventstore/sqlEventStore.js';
import { adminLogin, login } from '../identity/identity.testkit.js';
import { hashPassword } from '../identity/passwords.js';

forEachStore('a store written before crypto-shredding', (kind) => {
  let server: TestServer;
  const legacy = { id: 'legacy-member-0001', email: 'Legacy.Person@Example.test', password: 'legacy-password-1' };
  const at = '2026-01-10T10:00:00.000Z';

  beforeAll(async () => {
    // The old code: no codec, events appended exactly as the deciders made them.
    const store = await freshStore(kind);
    const db = store.env.DATABASE_URL ? openPostgres(store.env.DATABASE_URL) : openSqlite(path.join(store.dataDir, 'store.sqlite'));
    const old = await createSqlEventStore(db);
    const meta = { actorId: null, at };
    await old.append(
      `user-${legacy.id}`,
      [
        {
          type: 'UserRegistered',
          data: {
            userId: legacy.id,
            email: legacy.email,
            firstName: 'Leopold',
            lastName: 'Oldstore',
            dateOfBirth: '1970-07-07',
            passwordHash: await hashPassword(legacy.password),
            role: 'member',
            registeredAt: at,
            geoCountry: 'DE',
            geoRegion: 'BE',
          },
        },
        { type: 'UserApproved', data: { userId: legacy.id, approvedBy: 'system', approvedAt: at } },
      ],
      { expectedVersion: 'no_stream', metadata: meta },
    );
    await old.append(
      'payment-legacy-p1',
      [
        {
          type: 'PaymentSubmitted',
          data: {
            paymentId: 'legacy-p1',
            userId: legacy.id,
            userEmail: legacy.email,
            planType: 'monthly',
            amountSats: 50000,
            txHash: 'b'.repeat(64),
            submittedAt: at,
          },
        },
      ],
      { expectedVersion: 'no_stream', metadata: meta },
    );
    await old.close();
    await db.close();
    server = await startTestServer(kind, { store });
  });
  afterAll(async () => server?.close());

  it('opens, verifies and serves; erasure then reads as placeholders everywhere, the old clear bytes excepted', async () => {
    const api = apiClient(server.url);
    expect(await verifyChain(server.ctx.rawStore)).toMatchObject({ ok: true });
    const member = await login(api, legacy.email, legacy.password);
    expect(member.user).toMatchObject({ id: legacy.id, firstName: 'Leopold', geoLocation: { country: 'DE', region: 'BE' } });
    const exported = await fetch(`${server.url}/api/users/me/export`, { headers: { authorization: `Bearer ${member.token}` } });
    expect(((await exported.json()) as { member: unknown }).member).toMatchObject({ email: legacy.email, dateOfBirth: '1970-07-07' });
    const rowsBefore = [];
    for await (const r of paymentHistory(server.ctx.store.streamAll())) rowsBefore.push(r);
    expect(rowsBefore[0]).toMatchObject({ memberEmail: legacy.email, amountSats: 50000 });

    const admin = await adminLogin(api);
    expect((await api.post(`/admin/users/${legacy.id}/erase`, { reason: 'request by letter, id checked' }, admin.token)).status).toBe(200);

    const label = 'erased member legacy-m';
    const decoded = await server.ctx.store.readStream(`user-${legacy.id}`);
    expect(decoded[0]?.data).toMatchObject({ email: label, firstName: 'erased', dateOfBirth: '', geoCountry: null });
    const rowsAfter = [];
    for await (const r of paymentHistory(server.ctx.store.streamAll())) rowsAfter.push(r);
    // The open payment is canceled by the erasure (billing/erasure.ts): a second row, the same placeholder.
    expect(rowsAfter.map((r) => [r.action, r.memberEmail, r.amountSats, r.txHash])).toEqual([
      ['submitted', label, 50000, 'b'.repeat(64)],
      ['canceled', label, 50000, 'b'.repeat(64)],
    ]);
    expect(await server.ctx.db.get('SELECT email, first_name, date_of_birth, geo_country FROM users WHERE id = ?', [legacy.id])).toEqual({
      email: label,
      first_name: 'erased',
      date_of_birth: '',
      geo_country: null,
    });
    expect((await api.post('/auth/login', { email: legacy.email, password: legacy.password })).status).toBe(401);
    const live = await server.ctx.db.all('SELECT * FROM users ORDER BY id');
    await rebuildProjections(server.ctx.db, server.ctx.store, server.ctx.projections);
    expect(await server.ctx.db.all('SELECT * FROM users ORDER BY id')).toEqual(live);
    expect(await verifyChain(server.ctx.rawStore)).toMatchObject({ ok: true });
    // The limit: the chain is never rewritten, so what was written in clear before this change stays in the log.
    const raw = await server.ctx.db.get<{ data: string }>('SELECT data FROM events WHERE stream_id = ? AND version = 1', [
      `user-${legacy.id}`,
    ]);
    expect(raw?.data).toContain(legacy.email);
  });
});
