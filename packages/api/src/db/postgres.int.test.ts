/**
 * PostgreSQL's bulk path (`COPY … FROM STDIN`, used to copy a rebuild's staged tables): every value
 * comes back as it went in, whatever characters COPY's text format gives a meaning to, and a
 * failing copy is the transaction's failure, leaving nothing behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshStore, freshStore, storeKinds } from '../../test/harness.js';
import { openPostgres } from './postgres.js';
import { type Db, UniqueViolation } from './types.js';

describe.runIf(storeKinds.includes('postgres'))('PostgreSQL COPY', () => {
  let store: FreshStore;
  let db: Db;
  beforeAll(async () => {
    store = await freshStore('postgres');
    db = openPostgres(store.env.DATABASE_URL as string);
    await db.exec('CREATE TABLE copied (id INTEGER PRIMARY KEY, label TEXT, amount BIGINT, note TEXT)');
  });
  afterAll(async () => {
    await db?.close();
    await store?.cleanup();
  });

  const tricky = [
    [1, 'tab\there', 1, 'new\nline'],
    [2, 'back\\slash', 2_100_000_000_000_000, 'carriage\rreturn'],
    [3, '\\N', 0, null], // the two characters, not NULL
    [4, '', -5, "ünïcode “quotes” and 'apostrophes' 🎬"],
    [5, null, null, '\\t\\n literally'],
  ];

  it('copies every value back as it was, in batches', async () => {
    async function* batches() {
      yield tricky.slice(0, 2);
      yield [];
      yield tricky.slice(2);
    }
    const copied = await db.transaction(async (tx) => {
      if (!tx.copyRows) throw new Error('a PostgreSQL transaction has a bulk path');
      return tx.copyRows('copied', ['id', 'label', 'amount', 'note'], batches());
    });
    expect(copied).toBe(tricky.length);
    const rows = await db.all<{ id: number; label: string | null; amount: number | null; note: string | null }>(
      'SELECT id, label, amount, note FROM copied ORDER BY id',
    );
    expect(rows.map((r) => [r.id, r.label, r.amount, r.note])).toEqual(tricky);
  });

  it('a copy that breaks a constraint fails the transaction as a UniqueViolation and writes nothing', async () => {
    const before = await db.get<{ n: number }>('SELECT COUNT(*)::int AS n FROM copied');
    async function* duplicate() {
      yield [[100, 'new', 1, null]];
      yield [[1, 'taken id', 1, null]];
    }
    await expect(
      db.transaction(async (tx) => {
        await tx.copyRows?.('copied', ['id', 'label', 'amount', 'note'], duplicate());
      }),
    ).rejects.toBeInstanceOf(UniqueViolation);
    expect(await db.get<{ n: number }>('SELECT COUNT(*)::int AS n FROM copied')).toEqual(before);
    expect(await db.get('SELECT id FROM copied WHERE id = 100')).toBeUndefined();
  });
});
