/**
 * The KurrentDB adapter's own logic (expected revisions, our positions and hash chain in metadata,
 * $all paging with the position index, system events filtered, namespaces) through the shared
 * contract, over an in-memory fake of the client — no server runs here. The same contract runs
 * against a real server in kurrentEventStore.int.test.ts when EVENTSTORE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import { verifyChain } from '../audit/verifyChain.js';
import { eventStoreContract } from './eventStore.contract.testkit.js';
import { createKurrentEventStore } from './kurrentEventStore.js';
import { fakeKurrentClient } from './kurrentFake.testkit.js';

eventStoreContract('kurrentdb adapter over an in-memory fake client (not a server)', async () => {
  const store = createKurrentEventStore('kurrentdb://fake', { client: fakeKurrentClient() });
  return { store, close: () => store.close() };
});

describe('kurrentdb adapter (fake client)', () => {
  const meta = { at: '2026-01-01T00:00:00.000Z' };

  it('keeps namespaces apart on one server, each with its own positions and chain', async () => {
    const client = fakeKurrentClient();
    const a = createKurrentEventStore('kurrentdb://fake', { client, namespace: 'a' });
    const b = createKurrentEventStore('kurrentdb://fake', { client, namespace: 'b' });
    await a.append('s', [{ type: 'T', data: { n: 1 } }], { expectedVersion: 'no_stream', metadata: meta });
    await b.append(
      's',
      [
        { type: 'T', data: { n: 2 } },
        { type: 'T', data: { n: 3 } },
      ],
      { expectedVersion: 'no_stream', metadata: meta },
    );
    expect(await a.headPosition()).toBe(1);
    expect(await b.headPosition()).toBe(2);
    expect((await b.readStream('s')).map((e) => [e.streamId, e.position])).toEqual([
      ['s', 1],
      ['s', 2],
    ]);
    expect(client.log.map((e) => e.streamId)).toEqual(['$settings', 'a.s', 'b.s', 'b.s']);
    expect((await verifyChain(b)).ok).toBe(true);
  });

  it('pages through 2,500 events from any point via the position index, and verifies', async () => {
    const store = createKurrentEventStore('kurrentdb://fake', { client: fakeKurrentClient() });
    for (let i = 0; i < 250; i++)
      await store.append(
        `s-${i % 7}`,
        Array.from({ length: 10 }, (_, j) => ({ type: 'T', data: { n: i * 10 + j } })),
        { expectedVersion: 'any', metadata: meta },
      );
    expect((await store.readAll({ after: 1999, limit: 3 })).map((e) => e.position)).toEqual([2000, 2001, 2002]);
    expect((await store.readAll({ after: 2497, limit: 10 })).map((e) => e.position)).toEqual([2498, 2499, 2500]);
    expect(await verifyChain(store, { batchSize: 333 })).toMatchObject({ ok: true, events: 2500 });
  });

  it('copies recorded events as they are and refuses a batch that does not continue the chain', async () => {
    const src = createKurrentEventStore('kurrentdb://fake', { client: fakeKurrentClient() });
    await src.append(
      'x',
      [
        { type: 'T', data: { n: 1 } },
        { type: 'T', data: { n: 2 } },
      ],
      { expectedVersion: 'no_stream', metadata: meta },
    );
    await src.append('y', [{ type: 'T', data: { n: 3 } }], { expectedVersion: 'no_stream', metadata: meta });
    const events = await src.readAll();
    const dst = createKurrentEventStore('kurrentdb://fake', { client: fakeKurrentClient() });
    await expect(dst.appendRecorded(events.slice(1))).rejects.toThrow(/does not continue/);
    await dst.appendRecorded(events);
    expect(await dst.readAll()).toEqual(events);
  });

  it('tells listeners about events appended by another process (catch-up subscription)', async () => {
    const client = fakeKurrentClient();
    const mine = createKurrentEventStore('kurrentdb://fake', { client });
    const other = createKurrentEventStore('kurrentdb://fake', { client });
    const seen: number[] = [];
    const off = mine.onAppended((events) => seen.push(...events.map((e) => e.position)));
    await mine.append('m', [{ type: 'T', data: {} }], { expectedVersion: 'any', metadata: meta });
    await other.append('o', [{ type: 'T', data: {} }], { expectedVersion: 'any', metadata: meta });
    await new Promise((r) => setTimeout(r, 20));
    off();
    expect(seen).toEqual([1, 2]);
    await mine.close();
  });
});
