/**
 * The mail outbox: mails are written in the same transaction as the work that causes them (a
 * checkpointed subscriber reacting to an event), then sent by the mail sender. The `key` is unique
 * (derived from the event, e.g. `user-approved:<eventId>`), so replaying an event never queues a
 * second mail, and it becomes the Message-ID so a receiver can spot a resend after a crash.
 */
import type { Queryable } from '../db/types.js';

export const MAIL_OUTBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS mail_outbox (
  key TEXT PRIMARY KEY,
  to_address TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  sent_at TEXT
);
CREATE INDEX IF NOT EXISTS mail_outbox_unsent ON mail_outbox (sent_at, created_at);
`;

export interface OutgoingMail {
  /** Unique per mail; derive it from the causing event. */
  key: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export async function enqueueMail(tx: Queryable, mail: OutgoingMail, now: Date): Promise<void> {
  await tx.run(
    `INSERT INTO mail_outbox (key, to_address, subject, text_body, html_body, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
    [mail.key, mail.to, mail.subject, mail.text, mail.html ?? null, now.toISOString()],
  );
}
