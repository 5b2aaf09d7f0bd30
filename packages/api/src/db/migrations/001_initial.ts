/**
 * 001: the tables that are not derived from events, as the schema before versioned migrations
 * created them. Every statement says IF NOT EXISTS so a database created by that code (tables
 * present, no `schema_migrations`) is adopted as is. Later migrations need no such guard.
 */
import type { Migration } from './types.js';

const sql = `
CREATE TABLE IF NOT EXISTS events (
  position BIGINT PRIMARY KEY,
  stream_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (stream_id, version)
);
CREATE INDEX IF NOT EXISTS events_type ON events (type);
CREATE TABLE IF NOT EXISTS checkpoints (
  name TEXT PRIMARY KEY,
  position BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS projection_versions (
  name TEXT PRIMARY KEY,
  version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS refresh_sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX IF NOT EXISTS refresh_tokens_session ON refresh_tokens (session_id);
CREATE TABLE IF NOT EXISTS mail_outbox (
  key TEXT PRIMARY KEY,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at TEXT,
  sent_at TEXT
);
CREATE INDEX IF NOT EXISTS mail_outbox_unsent ON mail_outbox (sent_at, created_at);
CREATE TABLE IF NOT EXISTS upload_sessions (
  id TEXT PRIMARY KEY,
  file_name TEXT NOT NULL,
  size BIGINT NOT NULL,
  metadata_json TEXT NOT NULL,
  has_thumbnail INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  video_id TEXT,
  error TEXT,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS upload_sessions_status ON upload_sessions (status, updated_at);
`;

export const initial: Migration = { id: 1, name: 'initial', sqlite: sql, postgres: sql };
