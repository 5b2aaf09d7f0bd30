/**
 * The live shows read model: one `live_shows` row per show (its status, access, start, the SHA-256
 * of its current stream key, its replay video), kept by the `LiveShow*` events. The ingest finds a
 * show by its key's hash here; the key itself is stored nowhere.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { SHOW_EVENT_TYPES, type ShowEvent } from './show.decider.js';

export const LIVE_SHOWS_SCHEMA = `
CREATE TABLE IF NOT EXISTS live_shows (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  access_level TEXT NOT NULL,
  exclusive_to TEXT,
  starts_at TEXT NOT NULL,
  save_replay INTEGER NOT NULL,
  status TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  renditions TEXT,
  started_at TEXT,
  ended_at TEXT,
  replay_video_id TEXT,
  scheduled_by TEXT NOT NULL,
  scheduled_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS live_shows_key ON live_shows (key_hash);
CREATE INDEX IF NOT EXISTS live_shows_start ON live_shows (status, starts_at);
`;

export interface ShowRow {
  id: string;
  title: string;
  description: string;
  access_level: 'free' | 'premium' | 'vip';
  exclusive_to: 'annual' | null;
  starts_at: string;
  save_replay: number | boolean;
  status: 'scheduled' | 'live' | 'ended';
  key_hash: string;
  /** JSON: the live ladder's `LiveRenditionInfo[]`, from the start. */
  renditions: string | null;
  started_at: string | null;
  ended_at: string | null;
  replay_video_id: string | null;
  scheduled_by: string;
  scheduled_at: string;
}

async function applyEvent(tx: Queryable, event: ShowEvent): Promise<void> {
  switch (event.type) {
    case 'LiveShowScheduled': {
      const d = event.data;
      await tx.run(
        `INSERT INTO live_shows (id, title, description, access_level, exclusive_to, starts_at, save_replay, status, key_hash, scheduled_by, scheduled_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?)`,
        [
          d.showId,
          d.title,
          d.description,
          d.accessLevel,
          d.exclusiveTo,
          d.startsAt,
          d.saveReplay ? 1 : 0,
          d.keyHash,
          d.scheduledBy,
          d.scheduledAt,
        ],
      );
      return;
    }
    case 'LiveShowKeyRotated':
      await tx.run('UPDATE live_shows SET key_hash = ? WHERE id = ?', [event.data.keyHash, event.data.showId]);
      return;
    case 'LiveShowStarted':
      await tx.run(`UPDATE live_shows SET status = 'live', renditions = ?, started_at = ? WHERE id = ?`, [
        JSON.stringify(event.data.renditions),
        event.data.startedAt,
        event.data.showId,
      ]);
      return;
    case 'LiveShowEnded':
      await tx.run(`UPDATE live_shows SET status = 'ended', ended_at = ? WHERE id = ?`, [event.data.endedAt, event.data.showId]);
      return;
    case 'LiveShowReplayRecorded':
      await tx.run('UPDATE live_shows SET replay_video_id = ? WHERE id = ?', [event.data.videoId, event.data.showId]);
      return;
  }
}

const TYPES = new Set<string>(SHOW_EVENT_TYPES);

export const liveShowsProjection: Projection = {
  name: 'liveShows',
  version: 1,
  tables: ['live_shows'],
  schema: LIVE_SHOWS_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    if (TYPES.has(event.type)) await applyEvent(tx, event as unknown as ShowEvent);
  },
};

export const findShow = (db: Queryable, showId: string) => db.get<ShowRow>('SELECT * FROM live_shows WHERE id = ?', [showId]);
export const findShowByKeyHash = (db: Queryable, keyHash: string) =>
  db.get<ShowRow>('SELECT * FROM live_shows WHERE key_hash = ?', [keyHash]);
/** Upcoming and live shows, soonest first, and those ended in the last day. */
export const listShows = (db: Queryable, endedSince: string) =>
  db.all<ShowRow>(
    `SELECT * FROM live_shows WHERE status <> 'ended' OR ended_at >= ? ORDER BY CASE status WHEN 'live' THEN 0 ELSE 1 END, starts_at LIMIT 100`,
    [endedSince],
  );
