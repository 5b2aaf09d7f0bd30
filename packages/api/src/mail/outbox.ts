/**
 * The mail outbox: mails are written in the same transaction as the work that causes them (a
 * checkpointed subscriber reacting to an event), then sent by the mail sender. The `key` is unique
 * (derived from the event, e.g. `user-approved:<eventId>`), so replaying an event never queues a
 * second mail, and it becomes the Message-ID so a receiver can spot a resend after a crash.
 */
import type { Dialect, Queryable } from '../db/types.js';
import { mayWritePersonal } from '../shredding/index.js';

export interface OutboxRow {
  key: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  sent_at: string | null;
  /** The member the mail is for (null on rows queued before migration 009). */
  subject_id: string | null;
  /** Extra headers as a JSON object (migration 015; e.g. `List-Unsubscribe`), or null. */
  headers: string | null;
}

export interface OutgoingMail {
  /** Unique per mail; derive it from the causing event. */
  key: string;
  /** The member it is for: nothing is queued once they are erased (shredding/personalWrites.ts). */
  subjectId: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (e.g. `List-Unsubscribe`); names and values are ours, never a caller's text. */
  headers?: Record<string, string>;
}

/**
 * Queues a mail in `tx` (the transaction of the work that causes it), unless its member has been
 * erased: the key is checked in this transaction, exclusive with the erasure (see personalWrites.ts).
 */
export async function enqueueMail(dialect: Dialect, tx: Queryable, mail: OutgoingMail, now: Date): Promise<void> {
  // An erased member's address reads as a placeholder ("erased member …"): nothing to send to.
  if (!mail.to.includes('@')) return;
  if (!(await mayWritePersonal(dialect, tx, mail.subjectId))) return;
  await tx.run(
    `INSERT INTO mail_outbox (key, subject_id, to_address, subject, text_body, html_body, headers, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
    [
      mail.key,
      mail.subjectId,
      mail.to,
      mail.subject,
      mail.text,
      mail.html ?? null,
      mail.headers ? JSON.stringify(mail.headers) : null,
      now.toISOString(),
    ],
  );
}

/** Whether the mail is still queued and unsent (an erasure may have removed it since it was read). */
export async function stillQueued(q: Queryable, key: string): Promise<boolean> {
  return Boolean(await q.get('SELECT 1 AS one FROM mail_outbox WHERE key = ? AND sent_at IS NULL', [key]));
}

/** Unsent mails whose next attempt is due, oldest first. */
export function dueMails(q: Queryable, now: Date, limit = 20): Promise<OutboxRow[]> {
  return q.all<OutboxRow>(
    `SELECT * FROM mail_outbox WHERE sent_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
     ORDER BY created_at, key LIMIT ?`,
    [now.toISOString(), limit],
  );
}

/**
 * Claims a due mail for one attempt by pushing its next attempt past a lease; only the process
 * whose update changed the row sends it, so two senders never send one mail at once.
 */
export async function claimMail(q: Queryable, key: string, now: Date, leaseMs: number): Promise<boolean> {
  const r = await q.run(
    `UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?
     WHERE key = ? AND sent_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?)`,
    [new Date(now.getTime() + leaseMs).toISOString(), key, now.toISOString()],
  );
  return r.changes === 1;
}

export async function markSent(q: Queryable, key: string, now: Date): Promise<void> {
  await q.run('UPDATE mail_outbox SET sent_at = ?, last_error = NULL WHERE key = ?', [now.toISOString(), key]);
}

export async function markFailed(q: Queryable, key: string, error: string, retryAt: Date): Promise<void> {
  await q.run('UPDATE mail_outbox SET last_error = ?, next_attempt_at = ? WHERE key = ?', [
    error.slice(0, 1000),
    retryAt.toISOString(),
    key,
  ]);
}

/**
 * How many mails for the member whose keys start with `keyPrefix` were queued after `since` (sent
 * ones included, while the outbox keeps them): for a sender's daily cap.
 */
export async function mailsQueuedSince(q: Queryable, subjectId: string, keyPrefix: string, since: Date): Promise<number> {
  const row = await q.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM mail_outbox WHERE subject_id = ? AND key LIKE ? ESCAPE '\\' AND created_at > ?`,
    [subjectId, `${keyPrefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`, since.toISOString()],
  );
  return Number(row?.n ?? 0);
}
