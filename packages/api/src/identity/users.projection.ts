/**
 * Projects the identity events into `users` and `password_resets` (token hash → user, for the reset
 * confirmation lookup). Runs inline in the append transaction; the unique `email_lower` makes a
 * second registration with the same address (in any letter case) roll its append back.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import type { UserEvent } from './user.decider.js';
import { USERS_SCHEMA } from './users.schema.js';

export const PASSWORD_RESETS_SCHEMA = `
CREATE TABLE IF NOT EXISTS password_resets (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS password_resets_user ON password_resets (user_id);
`;

async function applyUserEvent(tx: Queryable, event: UserEvent): Promise<void> {
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data;
      await tx.run(
        `INSERT INTO users (id, email, email_lower, first_name, last_name, date_of_birth, password_hash, role, status,
           approved, email_verified, geo_country, geo_region, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, 0, ?, ?, ?)`,
        [
          d.userId,
          d.email,
          d.email.toLowerCase(),
          d.firstName,
          d.lastName,
          d.dateOfBirth,
          d.passwordHash,
          d.role,
          d.geoCountry ?? null,
          d.geoRegion ?? null,
          d.registeredAt,
        ],
      );
      return;
    }
    case 'UserApproved':
      await tx.run(`UPDATE users SET status = 'approved', approved = 1, approved_at = ? WHERE id = ?`, [
        event.data.approvedAt,
        event.data.userId,
      ]);
      return;
    case 'UserRejected':
      await tx.run(`UPDATE users SET status = 'rejected', approved = 0, rejected_at = ? WHERE id = ?`, [
        event.data.rejectedAt,
        event.data.userId,
      ]);
      return;
    case 'PasswordChanged':
      await tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [event.data.passwordHash, event.data.userId]);
      await tx.run('DELETE FROM password_resets WHERE user_id = ?', [event.data.userId]);
      return;
    case 'PasswordResetRequested':
      // Only the newest link works: a new request replaces the older one.
      await tx.run('DELETE FROM password_resets WHERE user_id = ?', [event.data.userId]);
      await tx.run('INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES (?, ?, ?)', [
        event.data.tokenHash,
        event.data.userId,
        event.data.expiresAt,
      ]);
      return;
    case 'EmailVerified':
      await tx.run('UPDATE users SET email_verified = 1 WHERE id = ?', [event.data.userId]);
      return;
    case 'AdminRoleGranted':
      await tx.run(`UPDATE users SET role = 'admin' WHERE id = ?`, [event.data.userId]);
      return;
    case 'ProfileUpdated':
      await tx.run('UPDATE users SET first_name = ?, last_name = ? WHERE id = ?', [
        event.data.firstName,
        event.data.lastName,
        event.data.userId,
      ]);
      return;
  }
}

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  tables: ['users', 'password_resets'],
  schema: USERS_SCHEMA + PASSWORD_RESETS_SCHEMA,
  async apply(tx: Queryable, event: RecordedEvent) {
    if (!event.streamId.startsWith('user-')) return;
    await applyUserEvent(tx, event as unknown as UserEvent);
  },
};
