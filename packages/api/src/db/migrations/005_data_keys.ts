/**
 * Per-member data keys for crypto-shredding (shredding/dataKeys.ts): each row holds one member's
 * AES-256 data key wrapped by the master key (DATA_KEY_SECRET). Outside the event log on purpose:
 * erasure sets `wrapped_key` to NULL (the key is destroyed) and keeps the row as a tombstone, so the
 * member's encrypted event fields can never be read again while the hash chain stays untouched.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS data_keys (
  subject_id TEXT PRIMARY KEY,
  wrapped_key TEXT,
  created_at TEXT NOT NULL,
  erased_at TEXT
);`;

export const dataKeys: Migration = { id: 5, name: 'data_keys', sqlite: ddl, postgres: ddl };
