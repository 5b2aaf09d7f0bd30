/**
 * Rate-limit counters shared by every API process on one PostgreSQL (db/rateLimit.ts).
 * UNLOGGED: a crash may forget counts (they only throttle), and writes skip the WAL. The embedded
 * SQLite store runs one process and counts in memory, so it has no such table.
 */
import type { Migration } from './types.js';

export const rateLimitCounters: Migration = {
  id: 3,
  name: 'rate_limit_counters',
  sqlite: '',
  postgres: `CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_counters (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  count INTEGER NOT NULL,
  reset_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);`,
};
