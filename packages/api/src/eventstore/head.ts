/**
 * The head of the SQL log as stored: the last event's position and hash. For a reader holding its
 * own snapshot of the store (a backup's copy, a dump's transaction) rather than an `EventStore`.
 */
import type { Queryable } from '../db/types.js';

export interface StoredHead {
  position: number;
  /** The last event's hash; null for an empty log. */
  hash: string | null;
}

export async function storedHead(q: Queryable): Promise<StoredHead> {
  const row = await q.get<{ position: number; hash: string }>('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
  return row ? { position: Number(row.position), hash: row.hash } : { position: 0, hash: null };
}
