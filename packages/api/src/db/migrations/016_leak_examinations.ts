/**
 * 016: the queue of leaked copies an admin sent to be examined (forensics/examinations.ts,
 * docs/leak-tracing.md). A job's state, not a fact: the outcome is the `LeakCopyExamined` event the
 * job appends (its `examinationId` names the row). `process` is `host:pid` of the API process that
 * holds the copy on its disk and runs the job, so a restart can mark what it was doing as failed.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS leak_examinations (
  id TEXT PRIMARY KEY,
  requested_by TEXT NOT NULL,
  file_name TEXT NOT NULL,
  size_bytes BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  video_id TEXT,
  status TEXT NOT NULL,
  process TEXT NOT NULL,
  failure TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX IF NOT EXISTS leak_examinations_status ON leak_examinations (status, process);`;

export const leakExaminations: Migration = { id: 16, name: 'leak_examinations', sqlite: ddl, postgres: ddl };
