/**
 * Copies a whole event log from one store to another (embedded → PostgreSQL, PostgreSQL →
 * KurrentDB, …) in position order, preserving event ids, versions, positions, times and hashes.
 * The target must be empty; each batch must continue the target's chain, so a copy is the same
 * chain or it stops. Streams in batches: constant memory whatever the log's size.
 */
import type { OpenedStore } from './storeUrl.js';
import type { RecordedEvent } from './types.js';

export interface CopyResult {
  events: number;
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
  from: Pick<OpenedStore, 'store'>,
  to: Pick<OpenedStore, 'store' | 'appendRecorded' | 'label'>,
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
  return { events, headPosition: last?.position ?? 0, headHash: last?.hash ?? null };
}
