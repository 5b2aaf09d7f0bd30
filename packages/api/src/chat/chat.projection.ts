/**
 * The chat read model: `chat_messages` (one row per message, ordered by the event's global
 * position, which is also how `before`/`after` page) and `chat_conversations` (one row per member
 * who has a conversation: last message, unread counts of each side, since when the member waits
 * for an answer). The conversation row is recomputed from the messages after every chat event, so
 * a deletion or a read can never leave a counter off by one.
 *
 * `chat_answers` keeps one row per team reply that ended a wait: how long the member waited and their
 * tier then (VIP: an annual plan with an active membership, read from billing's and identity's
 * tables, which project before this one, so a rebuild sees the same tier), for the admin stats'
 * answer time per tier. No text, no name: it stays after an erasure.
 *
 * `chat_reply_mail` keeps each member's choice of a mail when the team replies while they are offline
 * (`ChatReplyMailSet`; no row: on, the default).
 *
 * `MemberErased` blanks the member's message text (their key is gone from then on, so a rebuild
 * reads the text as the erased placeholder, stored as '' too).
 */
import { subscriptionOf } from '../billing/index.js';
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { findUserById } from '../identity/index.js';
import { ERASURE_EVENT } from '../shredding/index.js';
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
CREATE TABLE IF NOT EXISTS chat_answers (
  reply_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  tier TEXT NOT NULL,
  waited_ms BIGINT NOT NULL,
  answered_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_answers_time ON chat_answers (answered_at);
CREATE TABLE IF NOT EXISTS chat_reply_mail (
  user_id TEXT PRIMARY KEY,
  enabled INTEGER NOT NULL,
  set_at TEXT NOT NULL
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

/** A team reply to a waiting member: how long they waited, by their tier at that moment. */
async function recordAnswer(tx: Queryable, replyId: string, userId: string, sentAt: string): Promise<void> {
  const conv = await tx.get<{ waiting_since: string | null }>('SELECT waiting_since FROM chat_conversations WHERE user_id = ?', [userId]);
  if (!conv?.waiting_since) return;
  // Identity's and billing's read models as this transaction sees them, through their read ports.
  const member = await findUserById(tx, userId);
  const subscription = await subscriptionOf(tx, userId);
  const tier = subscription?.plan_type === 'annual' && member?.membership_status === 'active' ? 'vip' : 'standard';
  const waited = Math.max(0, Date.parse(sentAt) - Date.parse(conv.waiting_since));
  await tx.run('INSERT INTO chat_answers (reply_id, user_id, tier, waited_ms, answered_at) VALUES (?, ?, ?, ?, ?)', [
    replyId,
    userId,
    tier,
    waited,
    sentAt,
  ]);
}

async function applyChatEvent(tx: Queryable, event: ChatEvent, position: number): Promise<void> {
  switch (event.type) {
    case 'ChatMessageSent': {
      const d = event.data;
      if (d.from === 'admin') await recordAnswer(tx, d.messageId, d.userId, d.sentAt);
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
    case 'ChatReplyMailSet':
      await tx.run(
        `INSERT INTO chat_reply_mail (user_id, enabled, set_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET enabled = excluded.enabled, set_at = excluded.set_at`,
        [event.data.userId, event.data.enabled ? 1 : 0, event.data.setAt],
      );
      return;
  }
}

export const chatProjection: Projection = {
  name: 'chat',
  // 2: `chat_reply_mail` (the member's reply mail setting).
  version: 2,
  tables: ['chat_messages', 'chat_conversations', 'chat_answers', 'chat_reply_mail'],
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
