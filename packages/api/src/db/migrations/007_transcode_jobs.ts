/**
 * The transcode queue and the HLS encryption keys (transcode/): not derived from events.
 *
 * `transcode_jobs` is the persistent queue the leader's worker takes jobs from: one row per video,
 * fed by a checkpointed subscriber (`VideoUploaded`, `TranscodeRetried`), so a job is queued exactly
 * once and survives restarts; `state` running with a dead worker is put back to queued when the
 * next leader starts. The event log (`Transcode*`) stays the record of what happened.
 *
 * `video_keys` holds the AES-128 key of each video's HLS segments (hex), served only by the key
 * route to a member the access decision allows. Outside the log: an append-only history is the
 * wrong place for a secret that must be deletable with its video.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS transcode_jobs (
  video_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  worker TEXT,
  queued_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS transcode_jobs_state ON transcode_jobs (state, queued_at);
CREATE TABLE IF NOT EXISTS video_keys (
  video_id TEXT PRIMARY KEY,
  key_hex TEXT NOT NULL,
  iv_hex TEXT NOT NULL,
  created_at TEXT NOT NULL
);`;

export const transcodeJobs: Migration = { id: 7, name: 'transcode_jobs', sqlite: ddl, postgres: ddl };
