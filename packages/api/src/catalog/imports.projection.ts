/**
 * Which file contents became which video through `pnpm cli videos import`: one `video_imports` row
 * per SHA-256, from the `contentSha256` the import records in its `VideoUploaded` event's metadata.
 * The row is written in the append's transaction and the hash is the primary key, so two imports of
 * one file (two runs at once, a run resumed after Ctrl-C) commit one video: the second append fails
 * and rolls back. A deleted video keeps its row (`deleted_at` set), so a later run does not bring
 * back what the admin removed. Being a projection, it survives a rebuild, a store copy and a restore.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS video_imports (
  sha256 TEXT PRIMARY KEY,
  video_id TEXT NOT NULL,
  original_name TEXT,
  imported_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX IF NOT EXISTS video_imports_video ON video_imports (video_id);`;

export interface ImportRecord {
  videoId: string;
  originalName: string | null;
  importedAt: string;
  deletedAt: string | null;
}

/** The video a file with this SHA-256 was imported as, if any. */
export async function findImport(q: Queryable, sha256: string): Promise<ImportRecord | undefined> {
  const row = await q.get<{ video_id: string; original_name: string | null; imported_at: string; deleted_at: string | null }>(
    'SELECT video_id, original_name, imported_at, deleted_at FROM video_imports WHERE sha256 = ?',
    [sha256],
  );
  return row && { videoId: row.video_id, originalName: row.original_name, importedAt: row.imported_at, deletedAt: row.deleted_at };
}

export const importsProjection: Projection = {
  name: 'video-imports',
  version: 1,
  tables: ['video_imports'],
  schema: SCHEMA,
  async apply(tx, event: RecordedEvent) {
    const data = event.data as { videoId: string };
    if (event.type === 'VideoUploaded') {
      const sha256 = event.metadata.contentSha256;
      if (typeof sha256 !== 'string') return;
      const originalName = typeof event.metadata.originalName === 'string' ? event.metadata.originalName : null;
      // No ON CONFLICT: a second video for one file must fail its append.
      await tx.run('INSERT INTO video_imports (sha256, video_id, original_name, imported_at) VALUES (?, ?, ?, ?)', [
        sha256,
        data.videoId,
        originalName,
        event.recordedAt,
      ]);
    } else if (event.type === 'VideoDeleted') {
      await tx.run('UPDATE video_imports SET deleted_at = ? WHERE video_id = ?', [event.recordedAt, data.videoId]);
    }
  },
};
