/**
 * The contract every EventStore adapter passes: stream versions, optimistic concurrency (a
 * conflicting append fails with ConcurrencyError and writes nothing), global order, paging, the
 * hash chain, and two concurrent appends at one expected version (exactly one wins).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH } from './hashChain.js';
import { ConcurrencyError, type EventStore } from './types.js';

export interface ContractSubject {
  store: EventStore;
  close(): Promise<void>;
}

const meta = (actorId = 'u1') => ({ actorId, requestId: 'r1', at: '2026-01-01T00:00:00.000Z' });
const ev = (n: number) => ({ type: 'Thing', data: { n } });

export function eventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`EventStore contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    beforeEach(async () => {
      subject = await open();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.close();
    });

    it('appends to a new stream at versions 1..n and reads it back in order', async () => {
      const r = await store.append('a-1', [ev(1), ev(2)], { expectedVersion: 'no_stream', metadata: meta() });
      expect(r.nextVersion).toBe(2);
      const read = await store.readStream('a-1');
      expect(read.map((e) => [e.version, e.data.n])).toEqual([
        [1, 1],
        [2, 2],
      ]);
      expect(read[0]?.metadata.actorId).toBe('u1');
      expect(await store.readStream('missing')).toEqual([]);
    });

    it('rejects a wrong expected version with ConcurrencyError and writes nothing', async () => {
      await store.append('a-1', [ev(1)], { expectedVersion: 'no_stream', metadata: meta() });
      await expect(store.append('a-1', [ev(2), ev(3)], { expectedVersion: 0, metadata: meta() })).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append('a-1', [ev(2)], { expectedVersion: 'no_stream', metadata: meta() })).rejects.toBeInstanceOf(
        ConcurrencyError,
      );
      await expect(store.append('b-1', [ev(2)], { expectedVersion: 'stream_exists', metadata: meta() })).rejects.toBeInstanceOf(
        ConcurrencyError,
      );
      expect((await store.readStream('a-1')).length).toBe(1);
      expect(await store.headPosition()).toBe(1);
      // The position is not burnt by the failed append.
      const ok = await store.append('a-1', [ev(2)], { expectedVersion: 1, metadata: meta() });
      expect(ok.lastPosition).toBe(2);
      await store.append('a-1', [ev(3)], { expectedVersion: 'any', metadata: meta() });
      await store.append('a-1', [ev(4)], { expectedVersion: 'stream_exists', metadata: meta() });
      expect((await store.readStream('a-1')).map((e) => e.version)).toEqual([1, 2, 3, 4]);
    });

    it('keeps one gap-free global order across streams and pages through it', async () => {
      for (let i = 0; i < 25; i++) await store.append(`s-${i % 3}`, [ev(i)], { expectedVersion: 'any', metadata: meta() });
      const all = await store.readAll({ after: 0, limit: 100 });
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      const page = await store.readAll({ after: 10, limit: 5 });
      expect(page.map((e) => e.position)).toEqual([11, 12, 13, 14, 15]);
      const streamed: number[] = [];
      for await (const e of store.streamAll({ batchSize: 7 })) streamed.push(e.data.n as number);
      expect(streamed).toEqual(Array.from({ length: 25 }, (_, i) => i));
      expect(await store.headPosition()).toBe(25);
    });

    it('chains every event to the one before it with SHA-256', async () => {
      await store.append('a', [ev(1), ev(2)], { expectedVersion: 'any', metadata: meta() });
      await store.append('b', [ev(3)], { expectedVersion: 'any', metadata: meta() });
      const all = await store.readAll();
      let prev = GENESIS_HASH;
      for (const e of all) {
        expect(e.prevHash).toBe(prev);
        expect(e.hash).toBe(eventHash(prev, e));
        prev = e.hash;
      }
    });

    it('lets exactly one of two concurrent appends at the same expected version win', async () => {
      await store.append('race', [ev(0)], { expectedVersion: 'no_stream', metadata: meta() });
      const results = await Promise.allSettled(
        Array.from({ length: 2 }, (_, i) => store.append('race', [ev(i + 1)], { expectedVersion: 1, metadata: meta() })),
      );
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
      const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(rejected.length).toBe(1);
      expect(rejected[0]?.reason).toBeInstanceOf(ConcurrencyError);
      expect((await store.readStream('race')).length).toBe(2);
    });

    it('lets exactly one of ten racing creators of a stream win', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.append('new', [ev(i)], { expectedVersion: 'no_stream', metadata: meta() })),
      );
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
      expect((await store.readStream('new')).length).toBe(1);
    });

    it('answers concurrent appends to many existing streams each as if it had run alone', async () => {
      // Eight streams of different lengths; then, at once, one append per stream at its version (all
      // win), then two per stream at the same version (one of each pair wins, the other conflicts).
      const length = (s: number) => 1 + (s % 4);
      for (let s = 0; s < 8; s++) {
        const events = Array.from({ length: length(s) }, (_, k) => ev(k));
        await store.append(`many-${s}`, events, { expectedVersion: 'no_stream', metadata: meta() });
      }
      const first = await Promise.all(
        Array.from({ length: 8 }, (_, s) => store.append(`many-${s}`, [ev(10)], { expectedVersion: length(s), metadata: meta() })),
      );
      expect(first.map((r) => r.nextVersion)).toEqual(Array.from({ length: 8 }, (_, s) => length(s) + 1));
      const second = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) =>
          store.append(`many-${i % 8}`, [ev(20 + i)], { expectedVersion: length(i % 8) + 1, metadata: meta() }),
        ),
      );
      for (let s = 0; s < 8; s++) {
        const pair = [second[s], second[s + 8]];
        expect(pair.filter((r) => r?.status === 'fulfilled').length).toBe(1);
        expect((pair.find((r) => r?.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
        const versions = (await store.readStream(`many-${s}`)).map((e) => e.version);
        expect(versions).toEqual(Array.from({ length: length(s) + 2 }, (_, k) => k + 1));
      }
      const all = await store.readAll({ limit: 100 });
      const total = Array.from({ length: 8 }, (_, s) => length(s) + 2).reduce((a, b) => a + b, 0);
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      let prev = GENESIS_HASH;
      for (const e of all) {
        expect(e.hash).toBe(eventHash(prev, e));
        prev = e.hash;
      }
    });

    it('round-trips unicode, nested data and metadata exactly', async () => {
      const data = { name: 'Zoë 🌹', nested: { list: [1, 'two', null, true], sats: 50_000 } };
      await store.append('u', [{ type: 'Unicode', data }], { expectedVersion: 'any', metadata: { ...meta(), extra: 'x' } });
      const [e] = await store.readStream('u');
      expect(e?.data).toEqual(data);
      expect(e?.metadata.extra).toBe('x');
    });

    it('tells listeners about appended events', async () => {
      const seen: number[] = [];
      const off = store.onAppended((events) => seen.push(...events.map((e) => e.position)));
      await store.append('l', [ev(1), ev(2)], { expectedVersion: 'any', metadata: meta() });
      off();
      await store.append('l', [ev(3)], { expectedVersion: 'any', metadata: meta() });
      expect(seen).toEqual([1, 2]);
    });
  });
}
