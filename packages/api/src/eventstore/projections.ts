/**
 * Read models are projections of the event log. Inline projections run in the append transaction;
 * `rebuildProjections` drops their tables' rows and replays the whole log into them, with identical
 * results (a test proves it).
 */
import type { Db, Queryable } from '../db/types.js';
import type { InlineProjector } from './sqlEventStore.js';
import type { EventStore, RecordedEvent } from './types.js';

export interface Projection {
  name: string;
  /** Tables this projection owns (emptied before a rebuild). */
  tables: string[];
  /** DDL creating those tables (idempotent: CREATE ... IF NOT EXISTS). */
  schema: string;
  apply(tx: Queryable, event: RecordedEvent): Promise<void>;
}

export function inlineProjector(projections: Projection[]): InlineProjector {
  return async function projectInline(tx, event) {
    for (const p of projections) await p.apply(tx, event);
  };
}

export async function migrateProjections(db: Db, projections: Projection[]): Promise<void> {
  for (const p of projections) await db.exec(p.schema);
}

/** Empties every projection table and replays all events, in batches of one transaction each. */
export async function rebuildProjections(
  db: Db,
  store: EventStore,
  projections: Projection[],
  opts: { batchSize?: number } = {},
): Promise<{ events: number }> {
  await db.transaction(async (tx) => {
    for (const p of projections) for (const t of p.tables) await tx.run(`DELETE FROM ${t}`);
  });
  const project = inlineProjector(projections);
  let count = 0;
  let batch: RecordedEvent[] = [];
  const flush = async () => {
    const events = batch;
    batch = [];
    await db.transaction(async (tx) => {
      for (const e of events) await project(tx, e);
    });
  };
  for await (const e of store.streamAll({ batchSize: opts.batchSize ?? 1000 })) {
    batch.push(e);
    count++;
    if (batch.length >= (opts.batchSize ?? 1000)) await flush();
  }
  if (batch.length) await flush();
  return { events: count };
}
