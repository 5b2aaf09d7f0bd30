/**
 * Which event store the audit commands read: `--store URL` when given (any adapter, KurrentDB
 * included), else the server's own — DATABASE_URL (PostgreSQL), else DATA_DIR/store.sqlite.
 */
import path from 'node:path';
import { ConfigError, type Env } from '../config/env.js';
import { type OpenedStore, openStoreUrl } from '../eventstore/storeUrl.js';

export function envStoreUrl(env: Env): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  return `sqlite:${path.join(env.DATA_DIR, 'store.sqlite')}`;
}

export async function openAuditStore(env: Env, flags: Record<string, string>): Promise<OpenedStore> {
  try {
    return await openStoreUrl(flags.store ?? envStoreUrl(env), { create: false });
  } catch (err) {
    // main.ts prints a ConfigError's message alone and exits 2.
    throw new ConfigError(`Cannot open the event store: ${(err as Error).message}`);
  }
}
