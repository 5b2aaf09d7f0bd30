/**
 * A live show's chat room read model (issue 43): `live_chat_messages` (one row per message, ordered
 * by the event's global position; a deleted message keeps its row with `deleted_at` and no text) and
 * `live_chat_mutes` (the members staff muted, per show; an unmute removes the row). `MemberErased` blanks the member's text (their
 * key is gone from then on, so a rebuild reads it as the erased placeholder, stored as '' too).
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import type { AppContext } from '../kernel/context.js';
import type { MemberExport } from '../kernel/module.js';
import { ERASURE_EVENT } from '../shredding/index.js';
import { SHOW_CHAT_EVENT_TYPES, type ShowChatEvent } from './showChat.decider.js';

export const SHOW_CHAT_SCHEMA = `
CREATE TABLE IF NOT EXISTS live_chat_messages (
  id TEXT PRIMARY KEY,
  show_id TEXT NOT NULL,
  position BIGINT NOT NULL,
  user_id TEXT NOT NULL,
  text TEXT NOT NULL,
  posted_at TEXT NOT NULL,
  deleted_at TEXT,
  deleted_by TEXT
);
CREATE INDEX IF NOT EXISTS live_chat_messages_show ON live_chat_messages (show_id, position);
CREATE INDEX IF NOT EXISTS live_chat_messages_user ON live_chat_messages (user_id);
CREATE TABLE IF NOT EXISTS live_chat_mutes (
  show_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  muted_by TEXT NOT NULL,
  muted_at TEXT NOT NULL,
  PRIMARY KEY (show_id, user_id)
);
`;

export interface ShowChatMessageRow {
  id: string;
  show_id: string;
  position: number;
  user_id: string;
  text: string;
  posted_at: string;
  deleted_at: string | null;
  deleted_by: string | null;
}

async function applyEvent(tx: Queryable, event: ShowChatEvent, position: number): Promise<void> {
  switch (event.type) {
    case 'ShowChatMessagePosted': {
      const d = event.data;
      await tx.run('INSERT INTO live_chat_messages (id, show_id, position, user_id, text, posted_at) VALUES (?, ?, ?, ?, ?, ?)', [
        d.messageId,
        d.showId,
        position,
        d.userId,
        d.text ?? '',
        d.postedAt,
      ]);
      return;
    }
    case 'ShowChatMessageDeleted':
      // The text goes from the read model; the event keeps it sealed until the member's erasure.
      await tx.run(`UPDATE live_chat_messages SET deleted_at = ?, deleted_by = ?, text = '' WHERE id = ?`, [
        event.data.deletedAt,
        event.data.deletedBy,
        event.data.messageId,
      ]);
      return;
    case 'ShowChatMemberMuted':
      await tx.run(
        'INSERT INTO live_chat_mutes (show_id, user_id, muted_by, muted_at) VALUES (?, ?, ?, ?) ON CONFLICT (show_id, user_id) DO NOTHING',
        [event.data.showId, event.data.userId, event.data.mutedBy, event.data.mutedAt],
      );
      return;
    case 'ShowChatMemberUnmuted':
      await tx.run('DELETE FROM live_chat_mutes WHERE show_id = ? AND user_id = ?', [event.data.showId, event.data.userId]);
      return;
  }
}

const TYPES = new Set<string>(SHOW_CHAT_EVENT_TYPES);

export const showChatProjection: Projection = {
  name: 'liveChat',
  version: 1,
  tables: ['live_chat_messages', 'live_chat_mutes'],
  schema: SHOW_CHAT_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    if (event.type === ERASURE_EVENT) {
      const userId = (event.data as { userId?: string }).userId;
      if (userId) await tx.run(`UPDATE live_chat_messages SET text = '' WHERE user_id = ?`, [userId]);
      return;
    }
    if (TYPES.has(event.type)) await applyEvent(tx, event as unknown as ShowChatEvent, event.position);
  },
};

export const findShowChatMessage = (db: Queryable, id: string) =>
  db.get<ShowChatMessageRow>('SELECT * FROM live_chat_messages WHERE id = ?', [id]);

export async function isMutedInShow(db: Queryable, showId: string, userId: string): Promise<boolean> {
  return Boolean(await db.get('SELECT 1 AS m FROM live_chat_mutes WHERE show_id = ? AND user_id = ?', [showId, userId]));
}

/** The members muted in the show's room (staff's Unmute), in the order they were muted. */
export async function mutedInShow(db: Queryable, showId: string): Promise<string[]> {
  const rows = await db.all<{ user_id: string }>('SELECT user_id FROM live_chat_mutes WHERE show_id = ? ORDER BY muted_at, user_id', [
    showId,
  ]);
  return rows.map((r) => r.user_id);
}

/** The newest `limit` messages of the show not deleted, oldest first; with `after`, those after that position. */
export async function recentShowChat(db: Queryable, showId: string, limit: number, afterPosition?: number): Promise<ShowChatMessageRow[]> {
  if (afterPosition !== undefined)
    return db.all<ShowChatMessageRow>(
      'SELECT * FROM live_chat_messages WHERE show_id = ? AND deleted_at IS NULL AND position > ? ORDER BY position LIMIT ?',
      [showId, afterPosition, limit],
    );
  const rows = await db.all<ShowChatMessageRow>(
    'SELECT * FROM live_chat_messages WHERE show_id = ? AND deleted_at IS NULL ORDER BY position DESC LIMIT ?',
    [showId, limit],
  );
  return rows.reverse();
}

/**
 * The show chat's part of a member's data export (AppModule.exportPersonalData): what they wrote in
 * live shows' rooms, as it reads now (deleted messages are gone). An erasure needs nothing here: the
 * projection blanks their text on `MemberErased`, and the text is sealed under the key it destroys.
 */
export async function exportShowChatData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const rows = await ctx.db.all<{ id: string; show_id: string; text: string; posted_at: string }>(
    'SELECT id, show_id, text, posted_at FROM live_chat_messages WHERE user_id = ? AND deleted_at IS NULL ORDER BY position',
    [userId],
  );
  return { liveChatMessages: rows.map((m) => ({ id: m.id, showId: m.show_id, text: m.text, postedAt: m.posted_at })) };
}
