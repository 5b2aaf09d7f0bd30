/**
 * 013: transcode runners as HTTP clients (transcode/runnerTokens.ts, docs/transcode-runners.md). A
 * runner holds one token made by `pnpm cli runners token create NAME`; only its SHA-256 is kept, with
 * when it was made, last used and revoked. `transcode_runners` now names the token each runner
 * came with (NULL for the leader's in-server runner).
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS runner_tokens (
  name TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
ALTER TABLE transcode_runners ADD COLUMN token_name TEXT;`;

export const runnerTokens: Migration = { id: 13, name: 'runner_tokens', sqlite: ddl, postgres: ddl };
