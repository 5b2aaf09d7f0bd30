/**
 * Which event store the audit commands read: `--store URL` when given (any adapter, KurrentDB
 * included), else the server's own — DATABASE_URL (PostgreSQL), else DATA_DIR/store.sqlite.
 */
import path from 'node:path';
import { ConfigError, type Env } from '../config/env.js';
import { type OpenedStore, openStoreUrl } from '../eventstore/storeUrl.js';
import { shredderFor } from '../kernel/context.js';

export function envStoreUrl(env: Env): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  return `sqlite:${path.join(env.DATA_DIR, 'store.sqlite')}`;
}

/**
 * `readable`: personal fields decrypted (erased members as placeholders) with DATA_KEY_SECRET, for
 * reports that name members; without it (or without a key) events are read as stored, as the chain
 * check and copies need them. KurrentDB holds no data keys: its copy is always read as stored.
 */
export async function openAuditStore(env: Env, flags: Record<string, string>, opts: { readable?: boolean } = {}): Promise<OpenedStore> {
  try {
    const codec = opts.readable && env.DATA_KEY_SECRET ? shredderFor(env) : undefined;
    return await openStoreUrl(flags.store ?? envStoreUrl(env), { create: false, codec });
  } catch (err) {
    // main.ts prints a ConfigError's message alone and exits 2.
    throw new ConfigError(`Cannot open the event store: ${(err as Error).message}`);
  }
}
