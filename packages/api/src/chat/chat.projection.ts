/**
 * The chat read model: `chat_messages` (one row per message, ordered by the event's global
 * position, which is also how `before`/`after` page) and `chat_conversations` (one row per member
 * who has a conversation: last message, unread counts of each side, since when the member waits
 * for an answer). The conversation row is recomputed from the messages after every chat event, so
 * a deletion or a read can never leave a counter off by one.
 *
 * `MemberErased` blanks the member's message text (their key is gone from then on, so a rebuild
 * reads the text as the erased placeholder, stored as '' too).
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { ERASURE_EVENT } from '../privacy/personalData.js';
import type { ChatEvent } from './chat.decider.js';

export const CHAT_SCHEMA = `
CREATE TABLE IF NOT EXISTS chat_messages (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  position BIGINT NOT NULL,
  sender TEXT NOT NULL,
  author_id TEXT NOT NULL,
  text TEXT NOT NULL,
  sent_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX IF NOT EXISTS chat_messages_conversation ON chat_messages (user_id, position);
CREATE TABLE IF NOT EXISTS chat_conversations (
  user_id TEXT PRIMARY KEY,
  last_message_at TEXT NOT NULL,
  waiting_since TEXT,
  admin_unread INTEGER NOT NULL DEFAULT 0,
  member_unread INTEGER NOT NULL DEFAULT 0,
  member_read_position BIGINT NOT NULL DEFAULT 0,
  admin_read_position BIGINT NOT NULL DEFAULT 0
);
`;

export interface ChatMessageRow {
  id: string;
  user_id: string;
  position: number;
  sender: 'member' | 'admin';
  author_id: string;
  text: string;
  sent_at: string;
  deleted_at: string | null;
}

/** Unread counts and the waiting time from the messages and the read positions. */
async function recount(tx: Queryable, userId: string): Promise<void> {
  const conv = await tx.get<{ member_read_position: number; admin_read_position: number }>(
    'SELECT member_read_position, admin_read_position FROM chat_conversations WHERE user_id = ?',
    [userId],
  );
  if (!conv) return;
  const unread = async (sender: string, after: number) =>
    Number(
      (
        await tx.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM chat_messages WHERE user_id = ? AND sender = ? AND deleted_at IS NULL AND position > ?',
          [userId, sender, after],
        )
      )?.n ?? 0,
    );
  const lastAdmin = await tx.get<{ p: number | null }>(
    `SELECT MAX(position) AS p FROM chat_messages WHERE user_id = ? AND sender = 'admin'`,
    [userId],
  );
  const waiting = await tx.get<{ t: string | null }>(
    `SELECT MIN(sent_at) AS t FROM chat_messages WHERE user_id = ? AND sender = 'member' AND deleted_at IS NULL AND position > ?`,
    [userId, Number(lastAdmin?.p ?? 0)],
  );
  await tx.run('UPDATE chat_conversations SET admin_unread = ?, member_unread = ?, waiting_since = ? WHERE user_id = ?', [
    await unread('member', Number(conv.admin_read_position)),
    await unread('admin', Number(conv.member_read_position)),
    waiting?.t ?? null,
    userId,
  ]);
}

async function applyChatEvent(tx: Queryable, event: ChatEvent, position: number): Promise<void> {
  switch (event.type) {
    case 'ChatMessageSent': {
      const d = event.data;
      await tx.run('INSERT INTO chat_messages (id, user_id, position, sender, author_id, text, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        d.messageId,
        d.userId,
        position,
        d.from,
        d.authorId,
        d.text ?? '',
        d.sentAt,
      ]);
      await tx.run(
        `INSERT INTO chat_conversations (user_id, last_message_at) VALUES (?, ?)
         ON CONFLICT (user_id) DO UPDATE SET last_message_at = excluded.last_message_at`,
        [d.userId, d.sentAt],
      );
      return recount(tx, d.userId);
    }
    case 'ChatMessagesRead': {
      const column = event.data.reader === 'member' ? 'member_read_position' : 'admin_read_position';
      await tx.run(
        `UPDATE chat_conversations SET ${column} = COALESCE((SELECT position FROM chat_messages WHERE id = ?), ${column}) WHERE user_id = ?`,
        [event.data.upTo, event.data.userId],
      );
      return recount(tx, event.data.userId);
    }
    case 'ChatMessageDeleted':
      // The text goes from the read model; the event keeps it sealed until the member's erasure.
      await tx.run(`UPDATE chat_messages SET deleted_at = ?, text = '' WHERE id = ?`, [event.data.deletedAt, event.data.messageId]);
      return recount(tx, event.data.userId);
  }
}

export const chatProjection: Projection = {
  name: 'chat',
  version: 1,
  tables: ['chat_messages', 'chat_conversations'],
  schema: CHAT_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    if (event.type === ERASURE_EVENT) {
      const userId = (event.data as { userId?: string }).userId;
      if (userId) await tx.run(`UPDATE chat_messages SET text = '' WHERE user_id = ?`, [userId]);
      return;
    }
    if (!event.streamId.startsWith('chat-')) return;
    await applyChatEvent(tx, event as unknown as ChatEvent, event.position);
  },
};
