/**
 * Projections and the audit tools unchanged on the KurrentDB adapter: a SQLite history (built with
 * the real projections inline) is copied into the adapter — over the in-memory fake client, as no
 * server runs here — where the chain verifies, read models rebuilt from it into a fresh database
 * reconcile, and the payment history is identical.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshStore, freshStore } from '../../test/harness.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { copyStore } from '../eventstore/copyStore.js';
import { createKurrentEventStore, type KurrentEventStore } from '../eventstore/kurrentEventStore.js';
import { fakeKurrentClient } from '../eventstore/kurrentFake.testkit.js';
import { inlineProjector, migrateProjections, rebuildProjections } from '../eventstore/projections.js';
import { createSqlEventStore } from '../eventstore/sqlEventStore.js';
import type { EventStore } from '../eventstore/types.js';
import { modules } from '../wiring/modules.js';
import { generateBillingHistory } from './audit.testkit.js';
import { paymentHistory } from './paymentHistory.js';
import { reconcile } from './reconcile.js';
import { verifyChain } from './verifyChain.js';

const projections = modules.flatMap((m) => m.projections ?? []);

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

describe('audit tools on the KurrentDB adapter (in-memory fake client)', () => {
  let fresh: FreshStore;
  let sourceDb: Db;
  let source: EventStore;
  let kurrent: KurrentEventStore;
  let rebuiltDb: Db;

  beforeAll(async () => {
    fresh = await freshStore('sqlite');
    sourceDb = openSqlite(path.join(fresh.dataDir, 'store.sqlite'));
    source = await createSqlEventStore(sourceDb, { project: inlineProjector(projections) });
    await migrateProjections(sourceDb, projections);
    await generateBillingHistory(source, { members: 150, start: new Date(Date.now() - 86_400_000) });
    kurrent = createKurrentEventStore('kurrentdb://fake', { client: fakeKurrentClient() });
    rebuiltDb = openSqlite(path.join(fresh.dataDir, 'rebuilt.sqlite'));
  });
  afterAll(async () => {
    await kurrent?.close();
    await rebuiltDb?.close();
    await sourceDb?.close();
    await fresh?.cleanup();
  });

  it('copies into the adapter with positions and hashes, and verifies there', async () => {
    const r = await copyStore(
      { store: source },
      { store: kurrent, appendRecorded: (e) => kurrent.appendRecorded(e), label: 'kurrentdb://fake' },
    );
    expect(r.events).toBe(await source.headPosition());
    const v = await verifyChain(kurrent);
    expect(v).toMatchObject({ ok: true, events: r.events, headHash: r.headHash });
  });

  it('rebuilds the read models from the adapter; reconcile and the payment history agree', async () => {
    await migrateProjections(rebuiltDb, projections);
    await rebuildProjections(rebuiltDb, kurrent, projections, { batchSize: 200 });
    expect((await reconcile(rebuiltDb, kurrent)).differences).toEqual([]);
    expect((await reconcile(sourceDb, source)).differences).toEqual([]);
    const [a, b] = [await collect(paymentHistory(source.streamAll())), await collect(paymentHistory(kurrent.streamAll()))];
    expect(b).toEqual(a);
    expect(a.length).toBe(150 * 3); // requested + submitted + (verified or rejected)
  });
});
