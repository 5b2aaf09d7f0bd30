/**
 * Where the second factor is kept.
 * - `second_factors`: the read model projected from the second-factor events (status, enrolment,
 *   recovery codes left); rebuilt from the log like any projection. The guards read it.
 * - `second_factor_secrets` (a table outside the log, from db/migrations/004, never rebuilt, like
 *   refresh sessions): the TOTP secret encrypted with AES-256-GCM
 *   (totp.ts) and the last time step a code was accepted for. Keeping the secret out of the
 *   append-only log, even encrypted, means removing the factor really deletes it and a key rotation
 *   can re-encrypt the rows; the last-used step is churn the permanent log should not hold, and a
 *   conditional UPDATE on it makes a code single-use across every process sharing the database.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import type { SecondFactorEvent } from './secondFactor.decider.js';
import type { MemberErased } from './user.decider.js';

export const SECOND_FACTORS_SCHEMA = `
CREATE TABLE IF NOT EXISTS second_factors (
  user_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  enrolment_id TEXT NOT NULL,
  enrolled_at TEXT,
  recovery_codes_left INTEGER NOT NULL DEFAULT 0
);
`;

async function applySecondFactorEvent(tx: Queryable, event: SecondFactorEvent | MemberErased): Promise<void> {
  switch (event.type) {
    case 'SecondFactorEnrolmentStarted':
      await tx.run(
        `INSERT INTO second_factors (user_id, status, enrolment_id, enrolled_at, recovery_codes_left) VALUES (?, 'pending', ?, NULL, ?)
         ON CONFLICT (user_id) DO UPDATE SET status = 'pending', enrolment_id = excluded.enrolment_id, enrolled_at = NULL,
           recovery_codes_left = excluded.recovery_codes_left`,
        [event.data.userId, event.data.enrolmentId, event.data.recoveryCodeHashes.length],
      );
      return;
    case 'SecondFactorEnrolled':
      await tx.run(`UPDATE second_factors SET status = 'enabled', enrolled_at = ? WHERE user_id = ?`, [
        event.data.enrolledAt,
        event.data.userId,
      ]);
      return;
    case 'RecoveryCodeUsed':
      await tx.run('UPDATE second_factors SET recovery_codes_left = ? WHERE user_id = ?', [event.data.remaining, event.data.userId]);
      return;
    case 'SecondFactorRemoved':
    case 'MemberErased':
      await tx.run('DELETE FROM second_factors WHERE user_id = ?', [event.data.userId]);
      return;
  }
}

const TYPES = new Set(['SecondFactorEnrolmentStarted', 'SecondFactorEnrolled', 'RecoveryCodeUsed', 'SecondFactorRemoved', 'MemberErased']);

export const secondFactorsProjection: Projection = {
  name: 'second-factors',
  // 2: an erased member's factor is gone with them.
  version: 2,
  tables: ['second_factors'],
  schema: SECOND_FACTORS_SCHEMA,
  async apply(tx: Queryable, event: RecordedEvent) {
    if (!TYPES.has(event.type)) return;
    await applySecondFactorEvent(tx, event as unknown as SecondFactorEvent);
  },
};

export interface SecondFactorRow {
  user_id: string;
  status: 'pending' | 'enabled';
  enrolment_id: string;
  enrolled_at: string | null;
  recovery_codes_left: number;
}

export function findSecondFactor(q: Queryable, userId: string): Promise<SecondFactorRow | undefined> {
  return q.get<SecondFactorRow>('SELECT * FROM second_factors WHERE user_id = ?', [userId]);
}

export interface StoredSecret {
  enrolment_id: string;
  secret_ciphertext: string;
  last_used_step: number;
}

export async function saveSecret(q: Queryable, userId: string, enrolmentId: string, ciphertext: string, now: Date): Promise<void> {
  await q.run(
    `INSERT INTO second_factor_secrets (user_id, enrolment_id, secret_ciphertext, created_at, last_used_step) VALUES (?, ?, ?, ?, 0)
     ON CONFLICT (user_id) DO UPDATE SET enrolment_id = excluded.enrolment_id, secret_ciphertext = excluded.secret_ciphertext,
       created_at = excluded.created_at, last_used_step = 0`,
    [userId, enrolmentId, ciphertext, now.toISOString()],
  );
}

export function findSecret(q: Queryable, userId: string): Promise<StoredSecret | undefined> {
  return q.get<StoredSecret>('SELECT enrolment_id, secret_ciphertext, last_used_step FROM second_factor_secrets WHERE user_id = ?', [
    userId,
  ]);
}

/**
 * Records `step` as used; false when that step (or a later one) was already used: a replayed code.
 * One conditional UPDATE, so two processes accepting the same code at once cannot both win.
 */
export async function claimTimeStep(q: Queryable, userId: string, step: number): Promise<boolean> {
  const r = await q.run('UPDATE second_factor_secrets SET last_used_step = ? WHERE user_id = ? AND last_used_step < ?', [
    step,
    userId,
    step,
  ]);
  return r.changes === 1;
}

export async function deleteSecret(q: Queryable, userId: string): Promise<void> {
  await q.run('DELETE FROM second_factor_secrets WHERE user_id = ?', [userId]);
}

/**
 * An admin account with neither an enabled TOTP factor nor a passkey (REQUIRE_ADMIN_2FA holds it to
 * the enrolment routes). A passkey counts: it is something held, unlocked by something known or
 * something the holder is (user verification), and such an admin signs in with it (passkeys.service.ts).
 */
export async function adminLacksSecondFactor(q: Queryable, userId: string): Promise<boolean> {
  const row = await q.get<{ role: string; status: string | null; passkeys: number | string }>(
    `SELECT u.role, sf.status, (SELECT COUNT(*) FROM passkeys p WHERE p.user_id = u.id) AS passkeys
     FROM users u LEFT JOIN second_factors sf ON sf.user_id = u.id WHERE u.id = ?`,
    [userId],
  );
  return row?.role === 'admin' && row.status !== 'enabled' && Number(row.passkeys) === 0;
}
