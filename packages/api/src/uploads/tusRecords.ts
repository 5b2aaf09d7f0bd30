import type { Queryable } from '../db/types.js';

/** An unfinished upload is removed this long after its creation (tus expiration extension), a completion record this long after completion. */
export const UPLOAD_EXPIRY_MS = 7 * 86_400_000;

export interface FinishedUpload {
  videoId: string;
  size: number;
  completedAt: string;
}

/** Another process (or an earlier request) finished this upload first: the append rolls back. */
export class UploadAlreadyFinished extends Error {
  constructor(readonly uploadId: string) {
    super(`The upload ${uploadId} was already finished`);
    this.name = 'UploadAlreadyFinished';
  }
}

/**
 * A new upload, unfinished, owned by the admin who created it (a row already there — an upload
 * finished within its POST — keeps its completion and gets its owner).
 */
export async function recordCreated(db: Queryable, id: string, at: Date, createdBy: string | null): Promise<void> {
  await db.run(
    `INSERT INTO tus_uploads (id, created_at, created_by) VALUES (?, ?, ?)
ON CONFLICT (id) DO UPDATE SET created_by = excluded.created_by WHERE tus_uploads.created_by IS NULL`,
    [id, at.toISOString(), createdBy],
  );
}

/**
 * Whether `adminId` may see and touch the upload: it is theirs, or it has no recorded owner (an
 * upload created before owners were recorded, or one this database does not know).
 */
export async function mayTouchUpload(db: Queryable, id: string, adminId: string): Promise<boolean> {
  const row = await db.get<{ created_by: string | null }>('SELECT created_by FROM tus_uploads WHERE id = ?', [id]);
  return !row?.created_by || row.created_by === adminId;
}

/**
 * Marks the upload finished as `done.videoId`, inside the video's append transaction. Throws
 * UploadAlreadyFinished when it already names a video (PostgreSQL: a concurrent finisher's row lock
 * is waited for, then its committed video seen), which rolls the second video back.
 */
export async function recordFinished(tx: Queryable, id: string, done: FinishedUpload): Promise<void> {
  const { changes } = await tx.run(
    `INSERT INTO tus_uploads (id, created_at, video_id, size, completed_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET video_id = excluded.video_id, size = excluded.size, completed_at = excluded.completed_at
WHERE tus_uploads.video_id IS NULL`,
    [id, done.completedAt, done.videoId, done.size, done.completedAt],
  );
  if (changes === 0) throw new UploadAlreadyFinished(id);
}

export async function finishedRecord(db: Queryable, id: string): Promise<FinishedUpload | undefined> {
  const row = await db.get<{ video_id: string; size: number | string; completed_at: string }>(
    'SELECT video_id, size, completed_at FROM tus_uploads WHERE id = ? AND video_id IS NOT NULL',
    [id],
  );
  return row && { videoId: row.video_id, size: Number(row.size), completedAt: row.completed_at };
}

/** An unfinished upload that went (terminated by its client, refused at ingestion). */
export async function forgetUnfinished(db: Queryable, id: string): Promise<void> {
  await db.run('DELETE FROM tus_uploads WHERE id = ? AND video_id IS NULL', [id]);
}

/** Unfinished uploads not expired yet (created within `expiryMs` before `now`), on every process. */
export async function countUnfinished(db: Queryable, now: Date, expiryMs: number): Promise<number> {
  const row = await db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM tus_uploads WHERE video_id IS NULL AND created_at >= ?', [
    new Date(now.getTime() - expiryMs).toISOString(),
  ]);
  return Number(row?.n ?? 0);
}

/**
 * Uploads whose rows are due to go: completion records `expiryMs` after completion, unfinished uploads `expiryMs` after creation.
 * `legacy`: created before owners (and the object store's `PREFIX/tus/` layout) were recorded.
 */
export async function expiredRecords(db: Queryable, now: Date, expiryMs: number): Promise<{ id: string; legacy: boolean }[]> {
  const cutoff = new Date(now.getTime() - expiryMs).toISOString();
  const rows = await db.all<{ id: string; created_by: string | null }>(
    'SELECT id, created_by FROM tus_uploads WHERE (video_id IS NOT NULL AND completed_at < ?) OR (video_id IS NULL AND created_at < ?)',
    [cutoff, cutoff],
  );
  return rows.map((r) => ({ id: r.id, legacy: r.created_by === null }));
}

export async function dropRecord(db: Queryable, id: string): Promise<void> {
  await db.run('DELETE FROM tus_uploads WHERE id = ?', [id]);
}
