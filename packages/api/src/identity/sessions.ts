/**
 * Refresh sessions: a plain table, not events. A refresh token is a bearer secret that changes on
 * every refresh and means nothing to the business; putting each rotation in the permanent,
 * hash-chained log would fill it with churn and keep (hashes of) secrets forever. Losing the table
 * only logs people out. Only SHA-256 hashes of tokens are stored. Its tables come from db/migrations.
 *
 * Rotation: each refresh marks the presented token used and issues a new one in the same session.
 * Presenting an already-used token is treated as theft: the whole session is revoked.
 */
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types.js';
import { sha256 } from './tokens.js';

export interface IssuedToken {
  token: string;
  sessionId: string;
  expiresAt: Date;
}

async function insertToken(q: Queryable, sessionId: string, expiresAt: Date): Promise<IssuedToken> {
  const token = randomBytes(32).toString('base64url');
  await q.run('INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES (?, ?, ?)', [
    sha256(token),
    sessionId,
    expiresAt.toISOString(),
  ]);
  return { token, sessionId, expiresAt };
}

export async function createSession(db: Db, userId: string, sessionId: string, now: Date, ttlMs: number): Promise<IssuedToken> {
  return db.transaction(async (tx) => {
    await tx.run('INSERT INTO refresh_sessions (id, user_id, created_at) VALUES (?, ?, ?)', [sessionId, userId, now.toISOString()]);
    return insertToken(tx, sessionId, new Date(now.getTime() + ttlMs));
  });
}

export type RotateResult =
  | { ok: true; userId: string; next: IssuedToken }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' };

export async function rotateSession(db: Db, token: string, now: Date, ttlMs: number): Promise<RotateResult> {
  return db.transaction(async (tx) => {
    const row = await tx.get<{
      session_id: string;
      expires_at: string;
      used_at: string | null;
      user_id: string;
      revoked_at: string | null;
    }>(
      `SELECT t.session_id, t.expires_at, t.used_at, s.user_id, s.revoked_at
       FROM refresh_tokens t JOIN refresh_sessions s ON s.id = t.session_id WHERE t.token_hash = ?`,
      [sha256(token)],
    );
    if (!row) return { ok: false, reason: 'unknown' } as const;
    if (row.revoked_at) return { ok: false, reason: 'revoked' } as const;
    // The conditional update makes two concurrent refreshes with one token end as a reuse.
    const claimed = await tx.run('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL', [
      now.toISOString(),
      sha256(token),
    ]);
    if (row.used_at || claimed.changes !== 1) {
      await tx.run('UPDATE refresh_sessions SET revoked_at = ? WHERE id = ?', [now.toISOString(), row.session_id]);
      return { ok: false, reason: 'reused' } as const;
    }
    if (row.expires_at <= now.toISOString()) return { ok: false, reason: 'expired' } as const;
    const next = await insertToken(tx, row.session_id, new Date(now.getTime() + ttlMs));
    return { ok: true, userId: row.user_id, next } as const;
  });
}

/** Revokes the session a token belongs to (logout). Unknown tokens are ignored. */
export async function revokeSessionByToken(db: Db, token: string, now: Date): Promise<void> {
  await db.run(
    `UPDATE refresh_sessions SET revoked_at = ?
     WHERE revoked_at IS NULL AND id = (SELECT session_id FROM refresh_tokens WHERE token_hash = ?)`,
    [now.toISOString(), sha256(token)],
  );
}

/** Revokes every session of a user (after a password reset). */
export async function revokeUserSessions(q: Queryable, userId: string, now: Date): Promise<void> {
  await q.run('UPDATE refresh_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [now.toISOString(), userId]);
}
