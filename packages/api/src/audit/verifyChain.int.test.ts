/**
 * Tamper evidence against real databases: a generated history of thousands of billing events
 * verifies; editing one byte of a stored payment event, deleting a row, swapping two rows or
 * breaking a row's JSON is each detected at its position, in SQLite and in PostgreSQL.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshStore, forEachStore, freshStore } from '../../test/harness.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { createSqlEventStore } from '../eventstore/sqlEventStore.js';
import type { EventStore } from '../eventstore/types.js';
import { type GeneratedHistory, generateBillingHistory, rawEvents } from './audit.testkit.js';
import { generateSigningKeys, signCheckpoint, verifyCheckpointSignature } from './checkpoint.js';
import { describeVerify, verifyChain } from './verifyChain.js';

forEachStore('audit verify', (kind) => {
  let fresh: FreshStore;
  let db: Db;
  let store: EventStore;
  let history: GeneratedHistory;
  let raw: ReturnType<typeof rawEvents>;

  beforeAll(async () => {
    fresh = await freshStore(kind);
    db = kind === 'postgres' ? openPostgres(fresh.env.DATABASE_URL as string) : openSqlite(path.join(fresh.dataDir, 'store.sqlite'));
    store = await createSqlEventStore(db);
    history = await generateBillingHistory(store, { members: 500 });
    raw = rawEvents(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
    await fresh?.cleanup();
  });

  it('passes on thousands of untouched events', async () => {
    expect(history.events).toBeGreaterThanOrEqual(2900);
    const r = await verifyChain(store, { batchSize: 250 });
    expect(r).toMatchObject({ ok: true, events: history.events, headPosition: history.events });
    expect(describeVerify(r)).toMatch(/^OK: \d+ events verified/);
  });

  describe('detects tampering at its position', () => {
    it('one changed byte in a stored payment event', async () => {
      const p = history.aVerifiedPaymentPosition;
      const row = await raw.get(p);
      expect(row?.data).toContain('"amountSats":500000');
      // One byte: 500000 → 900000 (still valid JSON, a plausible forgery).
      await raw.setData(p, String(row?.data).replace('"amountSats":500000', '"amountSats":900000'));
      const r = await verifyChain(store);
      await raw.restore(row as never);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.break).toMatchObject({ position: p, kind: 'hash' });
        expect(describeVerify(r)).toContain(`BROKEN at position ${p} [hash]`);
      }
      expect((await verifyChain(store)).ok).toBe(true);
    });

    it('a deleted row (a gap in the positions)', async () => {
      const p = 1234;
      const row = await raw.get(p);
      await raw.remove(p);
      const r = await verifyChain(store);
      await raw.restore(row as never);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.break).toMatchObject({ position: p, kind: 'gap' });
      expect((await verifyChain(store)).ok).toBe(true);
    });

    it('the last row deleted is caught by a signed checkpoint, not by the chain alone', async () => {
      const keys = generateSigningKeys();
      const head = await verifyChain(store);
      if (!head.ok) throw new Error('expected an intact log');
      const cp = signCheckpoint({ position: head.headPosition, hash: head.headHash, time: '2026-11-22T12:00:00.000Z' }, keys.privateKey);
      expect(verifyCheckpointSignature(cp, keys.publicKey)).toBe(true);
      const row = await raw.get(head.headPosition);
      await raw.remove(head.headPosition);
      const plain = await verifyChain(store);
      const withCheckpoint = await verifyChain(store, { expect: cp });
      await raw.restore(row as never);
      expect(plain.ok).toBe(true);
      expect(withCheckpoint.ok).toBe(false);
      if (!withCheckpoint.ok) expect(withCheckpoint.break).toMatchObject({ position: head.headPosition, kind: 'checkpoint' });
    });

    it('two rows swapped', async () => {
      const [a, b] = [700, 701];
      await raw.swap(a, b);
      const r = await verifyChain(store);
      await raw.swap(a, b);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.break.position).toBe(a);
      expect((await verifyChain(store)).ok).toBe(true);
    });

    it('a row whose data is no longer JSON', async () => {
      const p = 2001;
      const row = await raw.get(p);
      await raw.setData(p, `${row?.data as string}}`);
      const r = await verifyChain(store, { batchSize: 500 });
      await raw.restore(row as never);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.break).toMatchObject({ position: p, kind: 'unreadable' });
    });
  });
});
