/**
 * Writes already-recorded events into a SQL event store exactly as they are — event id, stream,
 * version, position, time and both hashes — for `store copy`. Nothing is re-hashed: the batch must
 * continue the target's log (next position, prev_hash = the target's head hash), so a copy is
 * either the same chain or refused.
 */
import type { Db } from '../db/types.js';
import { GENESIS_HASH } from './hashChain.js';
import { insertEvents } from './sqlEventStore.js';
import type { RecordedEvent } from './types.js';

export class ChainContinuityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainContinuityError';
  }
}

/** Appends `events` (in position order) in one transaction, checking they continue the log. */
export async function appendRecordedSql(db: Db, events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.transaction(async (tx) => {
    await db.lockForAppend(tx);
    const last = await tx.get<{ position: number; hash: string }>('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
    let position = Number(last?.position ?? 0);
    let hash = last?.hash ?? GENESIS_HASH;
    for (const e of events) {
      if (e.position !== position + 1 || e.prevHash !== hash)
        throw new ChainContinuityError(`event ${e.position} does not continue the target log at position ${position}`);
      position = e.position;
      hash = e.hash;
    }
    // The whole batch continues the log: written as it is, in the transaction that checked it.
    await insertEvents(tx, events);
  });
}
