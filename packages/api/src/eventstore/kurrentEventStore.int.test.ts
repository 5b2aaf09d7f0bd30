/**
 * Runs the shared EventStore contract against KurrentDB when EVENTSTORE_URL points at a server
 * (e.g. `EVENTSTORE_URL=kurrentdb://localhost:2113?tls=false`). Each test gets its own namespace on
 * the server, so the suite needs no fresh database. Without a server the suite is skipped visibly,
 * with the reason in its title — never a silent pass.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyChain } from '../audit/verifyChain.js';
import { eventStoreContract } from './eventStore.contract.testkit.js';
import { createKurrentEventStore } from './kurrentEventStore.js';

const url = process.env.EVENTSTORE_URL;

if (url) {
  const open = async () => {
    const store = createKurrentEventStore(url, { namespace: `contract_${randomBytes(6).toString('hex')}` });
    return { store, close: () => store.close() };
  };
  eventStoreContract('kurrentdb', open);
  describe('KurrentDB: the audit tools work unchanged', () => {
    it('verifies the chain of events appended through the adapter', async () => {
      const { store, close } = await open();
      try {
        for (let i = 0; i < 30; i++)
          await store.append(`s-${i % 4}`, [{ type: 'Thing', data: { i } }], {
            expectedVersion: 'any',
            metadata: { at: new Date().toISOString() },
          });
        expect(await verifyChain(store, { batchSize: 7 })).toMatchObject({ ok: true, events: 30 });
      } finally {
        await close();
      }
    });
  });
} else {
  console.warn('KurrentDB contract skipped: EVENTSTORE_URL not set — no KurrentDB server on this machine');
  describe.skip('KurrentDB contract skipped: EVENTSTORE_URL not set — no KurrentDB server on this machine (set EVENTSTORE_URL=kurrentdb://HOST:2113?tls=false to run it)', () => {
    it('runs the EventStore contract against KurrentDB', () => {});
  });
}
