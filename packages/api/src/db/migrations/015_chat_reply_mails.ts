/**
 * 015: mail for a member who is offline when the team replies (issue 30 item 6, chat/replyMail.ts).
 * - `chat_reply_mails`: one row per member, the current "burst" of team replies they have not read
 *   (opened by the first reply after their last read, closed when they read), its state (`waiting`,
 *   `mailed`, `skipped`) and a claim lease, so of several API processes exactly one decides it.
 * - `chat_presence`: when the member was last seen by the chat (a socket open, alive or pushed to,
 *   the unread badge asked): a member seen since the burst began was online and gets no mail.
 * - `mail_outbox.headers`: extra headers of a queued mail (JSON), for `List-Unsubscribe`.
 * Work state, not a read model: a rebuild must not reopen bursts that were mailed already.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS chat_reply_mails (
  user_id TEXT PRIMARY KEY,
  burst_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  state TEXT NOT NULL,
  lease_until TEXT,
  decided_at TEXT,
  outcome TEXT
);
CREATE INDEX IF NOT EXISTS chat_reply_mails_due ON chat_reply_mails (state, started_at);
CREATE TABLE IF NOT EXISTS chat_presence (
  user_id TEXT PRIMARY KEY,
  seen_at TEXT NOT NULL
);
ALTER TABLE mail_outbox ADD COLUMN headers TEXT;`;

export const chatReplyMails: Migration = { id: 15, name: 'chat_reply_mails', sqlite: ddl, postgres: ddl };
