/**
 * 010: resumable (tus) uploads known to every API process through the database, not one process's
 * disk. A row is written when an upload is created (`video_id` NULL: unfinished, what the
 * `uploads_in_progress{kind="tus"}` gauge counts) and completed with its video's id in the same
 * transaction as the video's `VideoUploaded` event, so a client that lost the last answer learns
 * the video id from any process (HEAD), and two processes finishing one upload make one video.
 * Before this, completion records were files in the finishing process's `DATA_DIR/uploads/done`;
 * each process imports its own at start (uploads/tusRecords.ts). Rows go a week after completion,
 * or a week after creation for an upload never finished (tus's expiry).
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS tus_uploads (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  video_id TEXT,
  size BIGINT,
  completed_at TEXT
);
CREATE INDEX IF NOT EXISTS tus_uploads_created ON tus_uploads (created_at);`;

export const tusUploads: Migration = { id: 10, name: 'tus_uploads', sqlite: ddl, postgres: ddl };
