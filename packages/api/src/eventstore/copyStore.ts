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
  opts: { batchSize?: number; onProgress?: (copied: number) => void } = {},
): Promise<CopyResult> {
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
  const dataKeys = from.db && to.db ? await copyDataKeys(from.db, to.db) : 0;
  return { events, dataKeys, headPosition: last?.position ?? 0, headHash: last?.hash ?? null };
}

async function copyDataKeys(from: Db, to: Db): Promise<number> {
  const rows = await from.all<{ subject_id: string; wrapped_key: string | null; created_at: string; erased_at: string | null }>(
    'SELECT subject_id, wrapped_key, created_at, erased_at FROM data_keys ORDER BY subject_id',
  );
  await to.transaction(async (tx) => {
    for (const r of rows)
      await tx.run(
        `INSERT INTO data_keys (subject_id, wrapped_key, created_at, erased_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (subject_id) DO UPDATE SET wrapped_key = excluded.wrapped_key, erased_at = excluded.erased_at`,
        [r.subject_id, r.wrapped_key, r.created_at, r.erased_at],
      );
  });
  return rows.length;
}
