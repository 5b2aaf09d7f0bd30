/**
 * Where passkeys are kept.
 * - `passkeys`: the read model projected from PasskeyRegistered / PasskeyUsed / PasskeyRemoved (the
 *   credential's public key and counter for verifying a sign-in, the name and the dates the holder
 *   sees); rebuilt from the log like any projection; an erased member's rows go with them.
 * - `passkey_challenges` (a table outside the log, db/migrations/017): the challenge of each passkey
 *   ceremony under way, single-use and short-lived, like refresh sessions churn the log should not hold.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import type { PasskeyEvent } from './passkey.decider.js';
import type { MemberErased } from './user.decider.js';

export const PASSKEYS_SCHEMA = `
CREATE TABLE IF NOT EXISTS passkeys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter BIGINT NOT NULL,
  transports TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX IF NOT EXISTS passkeys_user ON passkeys (user_id);
`;

async function applyPasskeyEvent(tx: Queryable, event: PasskeyEvent | MemberErased): Promise<void> {
  switch (event.type) {
    case 'PasskeyRegistered': {
      const d = event.data;
      await tx.run(
        `INSERT INTO passkeys (id, user_id, name, public_key, counter, transports, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
         ON CONFLICT (id) DO NOTHING`,
        [d.passkeyId, d.userId, d.name, d.publicKey, d.counter, JSON.stringify(d.transports), d.registeredAt],
      );
      return;
    }
    case 'PasskeyUsed':
      await tx.run('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND user_id = ?', [
        event.data.counter,
        event.data.usedAt,
        event.data.passkeyId,
        event.data.userId,
      ]);
      return;
    case 'PasskeyRemoved':
      await tx.run('DELETE FROM passkeys WHERE id = ? AND user_id = ?', [event.data.passkeyId, event.data.userId]);
      return;
    case 'MemberErased':
      await tx.run('DELETE FROM passkeys WHERE user_id = ?', [event.data.userId]);
      return;
  }
}

const TYPES = new Set(['PasskeyRegistered', 'PasskeyUsed', 'PasskeyRemoved', 'MemberErased']);

export const passkeysProjection: Projection = {
  name: 'passkeys',
  version: 1,
  tables: ['passkeys'],
  schema: PASSKEYS_SCHEMA,
  async apply(tx: Queryable, event: RecordedEvent) {
    if (!TYPES.has(event.type)) return;
    await applyPasskeyEvent(tx, event as unknown as PasskeyEvent);
  },
};

export interface PasskeyRow {
  id: string;
  user_id: string;
  name: string;
  public_key: string;
  counter: number | string;
  transports: string;
  created_at: string;
  last_used_at: string | null;
}

/** An account's passkeys, oldest first. */
export function passkeysOf(q: Queryable, userId: string): Promise<PasskeyRow[]> {
  return q.all<PasskeyRow>('SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at, id', [userId]);
}

export function findPasskey(q: Queryable, id: string): Promise<PasskeyRow | undefined> {
  return q.get<PasskeyRow>('SELECT * FROM passkeys WHERE id = ?', [id]);
}

export async function hasPasskey(q: Queryable, userId: string): Promise<boolean> {
  return Boolean(await q.get('SELECT 1 AS one FROM passkeys WHERE user_id = ? LIMIT 1', [userId]));
}

// ── Ceremonies ──────────────────────────────────────────────────────────────────────────────────

/** `reauth`: an account proving itself again before ending its other sessions (settings.service.ts). */
export type CeremonyPurpose = 'register' | 'login' | 'reauth';

/** Keeps a ceremony's challenge until `expiresAt` (and drops the expired ones of everybody). */
export async function saveChallenge(
  q: Queryable,
  c: { id: string; purpose: CeremonyPurpose; userId: string | null; challenge: string; expiresAt: Date; now: Date },
): Promise<void> {
  await q.run('DELETE FROM passkey_challenges WHERE expires_at <= ?', [c.now.toISOString()]);
  await q.run('INSERT INTO passkey_challenges (id, purpose, user_id, challenge, expires_at) VALUES (?, ?, ?, ?, ?)', [
    c.id,
    c.purpose,
    c.userId,
    c.challenge,
    c.expiresAt.toISOString(),
  ]);
}

/**
 * Takes a ceremony's challenge once: the conditional delete makes the second of two answers to one
 * challenge find nothing. Undefined when unknown, used, expired, of another purpose or another account.
 */
export async function takeChallenge(
  q: Queryable,
  id: string,
  purpose: CeremonyPurpose,
  userId: string | null,
  now: Date,
): Promise<string | undefined> {
  const row = await q.get<{ challenge: string; user_id: string | null; purpose: string; expires_at: string }>(
    'SELECT challenge, user_id, purpose, expires_at FROM passkey_challenges WHERE id = ?',
    [id],
  );
  if (!row) return undefined;
  const taken = await q.run('DELETE FROM passkey_challenges WHERE id = ?', [id]);
  if (taken.changes !== 1 || row.purpose !== purpose || row.user_id !== userId || row.expires_at <= now.toISOString()) return undefined;
  return row.challenge;
}

/** Drops an erased account's ceremonies. */
export async function deleteChallengesOf(q: Queryable, userId: string): Promise<void> {
  await q.run('DELETE FROM passkey_challenges WHERE user_id = ?', [userId]);
}
