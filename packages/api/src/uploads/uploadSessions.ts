/**
 * NO LONGER USED: uploads are tus now (tusUploads.ts keeps its state in files under DATA_DIR).
 * The table definition stays until the versioned migrations drop it.
 *
 * The upload-session table: one row per resumable upload. A plain table, not events (the same call
 * as refresh sessions): an upload in progress is operational churn; the business fact is the
 * `VideoUploaded` event that ingestion appends when the last byte arrives. The bytes themselves
 * live in `DATA_DIR/uploads/{id}.part`, whose length *is* the upload's offset, so a restarted server
 * answers with exactly what it has on disk.
 */
import type { Projection } from '../eventstore/projections.js';

export const UPLOAD_SESSIONS_SCHEMA = `
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

/** Schema only: migrated with the projections, never rebuilt from the log. */
export const uploadSessionsSchema: Projection = {
  name: 'upload-sessions',
  tables: [],
  schema: UPLOAD_SESSIONS_SCHEMA,
  apply: async () => {},
};
