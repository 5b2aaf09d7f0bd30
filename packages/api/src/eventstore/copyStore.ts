/**
 * Copies a whole event log from one store to another (embedded → PostgreSQL, PostgreSQL →
 * KurrentDB, …) in position order, preserving event ids, versions, positions, times and hashes.
 * The target must be empty; each batch must continue the target's chain, so a copy is the same
 * chain or it stops. Streams in batches: constant memory whatever the log's size.
 */
import type { Db } from '../db/types.js';
import type { OpenedStore } from './storeUrl.js';
import type { RecordedEvent } from './types.js';

export interface CopyResult {
  events: number;
  /** Members' data-key rows copied with the log (SQL to SQL; see README "Privacy"). */
  dataKeys: number;
  /**
   * Subscribers' checkpoints copied with the log (SQL to SQL), so that a server on the copy does not
   * do again what the source's already did: every registration, approval and payment mail re-sent,
   * every video queued for transcoding again. `null` when the source has none to give (KurrentDB).
   */
  checkpoints: number | null;
  headPosition: number;
  headHash: string | null;
}

export class TargetNotEmptyError extends Error {
  constructor(label: string, head: number) {
    super(`The target store ${label} is not empty (head position ${head}); copy only into an empty store`);
    this.name = 'TargetNotEmptyError';
  }
}

/** @example await copyStore(await openStoreUrl('sqlite:./data'), await openStoreUrl(process.env.DATABASE_URL)) */
export async function copyStore(
  from: Pick<OpenedStore, 'store'> & { db?: Db | undefined },
  to: Pick<OpenedStore, 'store' | 'appendRecorded' | 'label'> & { db?: Db | undefined },
  opts: {
    batchSize?: number;
    onProgress?: (copied: number) => void;
    /**
     * Copies the members' data-key rows from one SQL store to the other (shredding/'s `copyDataKeys`),
     * answering how many. Passed in: the event store sits below crypto-shredding and imports none of it.
     * Required when both ends are SQL.
     */
    copyDataKeys?: (from: Db, to: Db) => Promise<number>;
  } = {},
): Promise<CopyResult> {
  if (from.db && to.db && !opts.copyDataKeys)
    throw new Error('a copy between SQL stores carries the data keys: pass copyDataKeys (shredding/) to copyStore');
  const head = await to.store.headPosition();
  if (head !== 0) throw new TargetNotEmptyError(to.label, head);
  const batchSize = opts.batchSize ?? 500;
  let batch: RecordedEvent[] = [];
  let events = 0;
  let last: RecordedEvent | undefined;
  const flush = async () => {
    if (batch.length === 0) return;
    await to.appendRecorded(batch);
    events += batch.length;
    batch = [];
    opts.onProgress?.(events);
  };
  for await (const e of from.store.streamAll({ batchSize })) {
    batch.push(e);
    last = e;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  // The sealed personal fields are only readable with their members' data keys (wrapped by the
  // same DATA_KEY_SECRET), and erasures are tombstones there: they travel with the log. KurrentDB
  // holds no keys: a copy there keeps the envelopes sealed and the keys stay in the SQL source.
  const dataKeys = from.db && to.db && opts.copyDataKeys ? await opts.copyDataKeys(from.db, to.db) : 0;
  const headPosition = last?.position ?? 0;
  const checkpoints = from.db && to.db ? await copyCheckpoints(from.db, to.db, headPosition) : null;
  return { events, dataKeys, checkpoints, headPosition, headHash: last?.hash ?? null };
}

/**
 * Positions are the same in the copy, so a checkpoint means the same there: the subscriber carries
 * on where it stopped in the source (an event it had not handled yet is still handled, once).
 */
async function copyCheckpoints(from: Db, to: Db, head: number): Promise<number> {
  const rows = await from.all<{ name: string; position: number }>('SELECT name, position FROM checkpoints ORDER BY name');
  await to.transaction(async (tx) => {
    for (const r of rows)
      await tx.run('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position', [
        r.name,
        Math.min(Number(r.position), head),
      ]);
  });
  return rows.length;
}
