/**
 * Refresh sessions: a plain table, not events. A refresh token is a bearer secret that changes on
 * every refresh and means nothing to the business; putting each rotation in the permanent,
 * hash-chained log would fill it with churn and keep (hashes of) secrets forever. Losing the table
 * only logs people out. Only SHA-256 hashes of tokens are stored. Its tables come from db/migrations.
 *
 * Rotation: each refresh marks the presented token used and issues a new one in the same session.
 * Presenting an already-used token is treated as theft and the whole session is revoked, except
 * within a short reuse interval after its first use (REFRESH_REUSE_INTERVAL_SECONDS, the "leeway"
 * of Auth0 and Okta): a browser that reloaded while a refresh was in flight never stored the rotated
 * cookie and presents the old one again; it gets another new token of the same session.
 *
 * Lifetimes (issue 42, ASVS 3.3.2): a session ends `absoluteMs` after it was opened however often it
 * refreshes (its tokens never outlive that moment, and access tokens naming it are refused from then
 * on), and an admin's (staff) session ends when it was not refreshed for `staffIdleMs`. Idleness is
 * measured between refreshes: the client refreshes only when a call finds its access token expiring,
 * so a session in use refreshes at least every ACCESS_TOKEN_TTL_SECONDS, an unused one not at all.
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

/** The longest user agent kept: enough to name a browser and device, not a place to store megabytes. */
export const USER_AGENT_MAX = 300;

export async function createSession(
  db: Db,
  userId: string,
  sessionId: string,
  now: Date,
  ttlMs: number,
  userAgent: string | null = null,
  lifetimes?: Pick<SessionLifetimes, 'absoluteMs'>,
): Promise<IssuedToken> {
  return db.transaction(async (tx) => {
    await tx.run('INSERT INTO refresh_sessions (id, user_id, created_at, last_used_at, user_agent) VALUES (?, ?, ?, ?, ?)', [
      sessionId,
      userId,
      now.toISOString(),
      now.toISOString(),
      userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
    ]);
    const end = lifetimes ? lifetimeEnd(now.toISOString(), lifetimes) : new Date(now.getTime() + ttlMs);
    return insertToken(tx, sessionId, tokenExpiry(now, ttlMs, end));
  });
}

export type RotateResult =
  | { ok: true; userId: string; next: IssuedToken }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'lifetime' | 'idle' };

/** How long sessions may last (see the top of this file). */
export interface SessionLifetimes {
  /** From the session's opening, refreshes or not. */
  absoluteMs: number;
  /** An admin's session unrefreshed for this long ends. */
  staffIdleMs: number;
}

/** When a session opened at `createdAt` ends whatever it does. */
export const lifetimeEnd = (createdAt: string, lifetimes: Pick<SessionLifetimes, 'absoluteMs'>): Date =>
  new Date(new Date(createdAt).getTime() + lifetimes.absoluteMs);

/** A token's expiry: its own lifetime, cut at the end of its session's. */
const tokenExpiry = (now: Date, ttlMs: number, end: Date): Date => new Date(Math.min(now.getTime() + ttlMs, end.getTime()));

export async function rotateSession(
  db: Db,
  token: string,
  now: Date,
  ttlMs: number,
  lifetimes: SessionLifetimes,
  reuseIntervalMs = 0,
): Promise<RotateResult> {
  const hash = sha256(token);
  return db.transaction(async (tx) => {
    const row = await tx.get<{
      session_id: string;
      expires_at: string;
      used_at: string | null;
      user_id: string;
      revoked_at: string | null;
      created_at: string;
      last_used_at: string | null;
      role: string | null;
    }>(
      `SELECT t.session_id, t.expires_at, t.used_at, s.user_id, s.revoked_at, s.created_at, s.last_used_at,
              (SELECT u.role FROM users u WHERE u.id = s.user_id) AS role
       FROM refresh_tokens t JOIN refresh_sessions s ON s.id = t.session_id WHERE t.token_hash = ?`,
      [hash],
    );
    if (!row) return { ok: false, reason: 'unknown' } as const;
    if (row.revoked_at) return { ok: false, reason: 'revoked' } as const;
    const end = lifetimeEnd(row.created_at, lifetimes);
    const idleSince = new Date(row.last_used_at ?? row.created_at).getTime();
    const over: 'lifetime' | 'idle' | undefined =
      end.getTime() <= now.getTime()
        ? 'lifetime'
        : row.role === 'admin' && now.getTime() - idleSince >= lifetimes.staffIdleMs
          ? 'idle'
          : undefined;
    if (over) {
      await tx.run('UPDATE refresh_sessions SET revoked_at = ? WHERE id = ?', [now.toISOString(), row.session_id]);
      return { ok: false, reason: over } as const;
    }
    // The conditional update makes the second of two concurrent refreshes with one token a reuse.
    const claimed = await tx.run('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL', [
      now.toISOString(),
      hash,
    ]);
    if (row.expires_at <= now.toISOString()) return { ok: false, reason: 'expired' } as const;
    if (row.used_at || claimed.changes !== 1) {
      const usedAt =
        row.used_at ??
        (await tx.get<{ used_at: string | null }>('SELECT used_at FROM refresh_tokens WHERE token_hash = ?', [hash]))?.used_at;
      const sinceUse = usedAt ? now.getTime() - new Date(usedAt).getTime() : Number.POSITIVE_INFINITY;
      if (!(sinceUse <= reuseIntervalMs)) {
        await tx.run('UPDATE refresh_sessions SET revoked_at = ? WHERE id = ?', [now.toISOString(), row.session_id]);
        return { ok: false, reason: 'reused' } as const;
      }
    }
    const next = await insertToken(tx, row.session_id, tokenExpiry(now, ttlMs, end));
    await tx.run('UPDATE refresh_sessions SET last_used_at = ? WHERE id = ?', [now.toISOString(), row.session_id]);
    return { ok: true, userId: row.user_id, next } as const;
  });
}

/** Revokes the session a token belongs to (logout); its user, or undefined for an unknown token or an ended session. */
export async function revokeSessionByToken(db: Db, token: string, now: Date): Promise<string | undefined> {
  // In a write transaction: SQLite's plain `get` reads through the reader connection.
  const row = await db.transaction((tx) =>
    tx.get<{ user_id: string }>(
      `UPDATE refresh_sessions SET revoked_at = ?
       WHERE revoked_at IS NULL AND id = (SELECT session_id FROM refresh_tokens WHERE token_hash = ?) RETURNING user_id`,
      [now.toISOString(), sha256(token)],
    ),
  );
  return row?.user_id;
}

/** Revokes every session of a user (after a password reset), or every one but `exceptSessionId`. */
export async function revokeUserSessions(q: Queryable, userId: string, now: Date, exceptSessionId?: string): Promise<number> {
  const r = exceptSessionId
    ? await q.run('UPDATE refresh_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?', [
        now.toISOString(),
        userId,
        exceptSessionId,
      ])
    : await q.run('UPDATE refresh_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [now.toISOString(), userId]);
  return r.changes;
}

/** Revokes one session of this user; false when it is not theirs or already ended. */
export async function revokeUserSession(q: Queryable, userId: string, sessionId: string, now: Date): Promise<boolean> {
  const r = await q.run('UPDATE refresh_sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [
    now.toISOString(),
    sessionId,
    userId,
  ]);
  return r.changes === 1;
}

/**
 * Whether a session has ended: revoked, gone (an erased member's sessions are deleted) or past its
 * absolute lifetime. Access tokens name their session, so ending it ends them too, not only the
 * refresh token.
 */
export async function sessionEnded(
  q: Queryable,
  sessionId: string,
  now: Date,
  lifetimes: Pick<SessionLifetimes, 'absoluteMs'>,
): Promise<boolean> {
  const row = await q.get<{ revoked_at: string | null; created_at: string }>(
    'SELECT revoked_at, created_at FROM refresh_sessions WHERE id = ?',
    [sessionId],
  );
  return !row || Boolean(row.revoked_at) || lifetimeEnd(row.created_at, lifetimes).getTime() <= now.getTime();
}

export interface ActiveSessionRow {
  id: string;
  user_agent: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
}

/** A user's sessions that can still refresh (not revoked, an unused token not yet expired), newest use first. */
export function activeSessions(q: Queryable, userId: string, now: Date): Promise<ActiveSessionRow[]> {
  return q.all<ActiveSessionRow>(
    `SELECT s.id, s.user_agent, s.created_at, s.last_used_at, MAX(t.expires_at) AS expires_at
     FROM refresh_sessions s JOIN refresh_tokens t ON t.session_id = s.id
     WHERE s.user_id = ? AND s.revoked_at IS NULL AND t.used_at IS NULL AND t.expires_at > ?
     GROUP BY s.id, s.user_agent, s.created_at, s.last_used_at
     ORDER BY COALESCE(s.last_used_at, s.created_at) DESC, s.id`,
    [userId, now.toISOString()],
  );
}

/** Every session of a user, ended ones too, oldest first (their data export). */
export function sessionsOf(q: Queryable, userId: string): Promise<{ id: string; created_at: string; revoked_at: string | null }[]> {
  return q.all('SELECT id, created_at, revoked_at FROM refresh_sessions WHERE user_id = ? ORDER BY created_at, id', [userId]);
}

/** Deletes every session of a user and its tokens (their erasure). */
export async function deleteSessionsOf(db: Db, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run('DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM refresh_sessions WHERE user_id = ?)', [userId]);
    await tx.run('DELETE FROM refresh_sessions WHERE user_id = ?', [userId]);
  });
}
