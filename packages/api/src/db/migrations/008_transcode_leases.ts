/**
 * 008: transcode runners on several machines (transcode/runner.ts). A claimed job now carries a
 * lease (`lease_expires_at`, renewed by its runner's heartbeat): a runner that dies loses its jobs
 * to another runner once the lease has passed, instead of "whatever is running belongs to the dead
 * previous leader" (true only while one process transcoded). `transcode_runners` lists the runners
 * with their heartbeats for /api/health and the metrics; a row is removed when its runner stops
 * cleanly and forgotten a while after its last heartbeat. Jobs left `running` by a version without
 * leases have none and are taken again at once.
 */
import type { Migration } from './types.js';

const ddl = `ALTER TABLE transcode_jobs ADD COLUMN lease_expires_at TEXT;
CREATE TABLE IF NOT EXISTS transcode_runners (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  concurrency INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);`;

export const transcodeLeases: Migration = { id: 8, name: 'transcode_leases', sqlite: ddl, postgres: ddl };
