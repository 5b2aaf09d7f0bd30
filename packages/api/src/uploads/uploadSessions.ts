/**
 * The upload-session table: one row per resumable upload. A plain table, not events (the same call
 * as refresh sessions): an upload in progress is operational churn; the business fact is the
 * `VideoUploaded` event that ingestion appends when the last byte arrives. The bytes themselves
 * live in `DATA_DIR/uploads/{id}.part`, whose length *is* the upload's offset, so a restarted server
 * answers with exactly what it has on disk. The table comes from db/migrations.
 */
import type { Queryable } from '../db/types.js';

export type UploadStatus = 'open' | 'completed' | 'failed' | 'canceled';

export interface UploadMetadata {
  title: string;
  description?: string;
  model?: string;
  accessLevel?: string;
  tags?: string[];
  categories?: string[];
  durationText?: string;
}

export interface UploadSession {
  id: string;
  fileName: string;
  size: number;
  metadata: UploadMetadata;
  hasThumbnail: boolean;
  status: UploadStatus;
  videoId: string | null;
  error: string | null;
  createdBy: string;
}

interface Row {
  id: string;
  file_name: string;
  size: number | string;
  metadata_json: string;
  has_thumbnail: number;
  status: UploadStatus;
  video_id: string | null;
  error: string | null;
  created_by: string;
}

export async function insertUploadSession(q: Queryable, s: UploadSession, now: Date): Promise<void> {
  const at = now.toISOString();
  await q.run(
    `INSERT INTO upload_sessions (id, file_name, size, metadata_json, has_thumbnail, status, video_id, error, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [s.id, s.fileName, s.size, JSON.stringify(s.metadata), s.hasThumbnail ? 1 : 0, s.status, s.videoId, s.error, s.createdBy, at, at],
  );
}

export async function findUploadSession(q: Queryable, id: string): Promise<UploadSession | undefined> {
  const row = await q.get<Row>(
    'SELECT id, file_name, size, metadata_json, has_thumbnail, status, video_id, error, created_by FROM upload_sessions WHERE id = ?',
    [id],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    fileName: row.file_name,
    size: Number(row.size),
    metadata: JSON.parse(row.metadata_json) as UploadMetadata,
    hasThumbnail: row.has_thumbnail === 1,
    status: row.status,
    videoId: row.video_id,
    error: row.error,
    createdBy: row.created_by,
  };
}

/** Moves an open session to its final status (only from 'open', so a finished upload never changes again). */
export async function finishUploadSession(
  q: Queryable,
  id: string,
  to: { status: Exclude<UploadStatus, 'open'>; videoId?: string; error?: string },
  now: Date,
): Promise<boolean> {
  const r = await q.run("UPDATE upload_sessions SET status = ?, video_id = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'open'", [
    to.status,
    to.videoId ?? null,
    to.error ?? null,
    now.toISOString(),
    id,
  ]);
  return r.changes > 0;
}

/** Notes that bytes arrived (the sweeper keeps uploads that move). */
export async function touchUploadSession(q: Queryable, id: string, now: Date): Promise<void> {
  await q.run('UPDATE upload_sessions SET updated_at = ? WHERE id = ?', [now.toISOString(), id]);
}

/** Open uploads that received nothing since `before`. */
export async function staleOpenSessions(q: Queryable, before: Date): Promise<string[]> {
  const rows = await q.all<{ id: string }>("SELECT id FROM upload_sessions WHERE status = 'open' AND updated_at < ?", [
    before.toISOString(),
  ]);
  return rows.map((r) => r.id);
}
