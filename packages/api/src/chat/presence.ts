/**
 * When the chat last saw a member online (table `chat_presence`, migration 015), shared by every API
 * process: their socket opened, stayed open (each 30-second check), was pushed a message or
 * closed, or their unread badge asked `GET /api/chat/status`. The reply mail (replyMail.ts) goes
 * only to a member not seen since the team's reply.
 */
import type { Queryable } from '../db/types.js';

export async function markSeen(q: Queryable, userId: string, at: Date): Promise<void> {
  const seenAt = at.toISOString();
  await q.run(
    `INSERT INTO chat_presence (user_id, seen_at) VALUES (?, ?)
     ON CONFLICT (user_id) DO UPDATE SET seen_at = CASE WHEN chat_presence.seen_at > excluded.seen_at THEN chat_presence.seen_at ELSE excluded.seen_at END`,
    [userId, seenAt],
  );
}

export async function lastSeen(q: Queryable, userId: string): Promise<string | null> {
  const row = await q.get<{ seen_at: string }>('SELECT seen_at FROM chat_presence WHERE user_id = ?', [userId]);
  return row?.seen_at ?? null;
}
