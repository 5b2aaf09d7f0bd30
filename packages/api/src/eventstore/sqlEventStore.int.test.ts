/** Runs the EventStore contract against SQLite (embedded) and PostgreSQL (TEST_DATABASE_URL). */

import path from 'node:path';
import { freshStore, storeKinds } from '../../test/harness.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import { eventStoreContract } from './eventStore.contract.testkit.js';
import { createSqlEventStore } from './sqlEventStore.js';

for (const kind of storeKinds) {
  eventStoreContract(kind, async () => {
    const fresh = await freshStore(kind);
    const db = kind === 'postgres' ? openPostgres(fresh.env.DATABASE_URL as string) : openSqlite(path.join(fresh.dataDir, 'store.sqlite'));
    const store = await createSqlEventStore(db);
    return {
      store,
      async close() {
        await store.close();
        await db.close();
        await fresh.cleanup();
      },
    };
  });
}
