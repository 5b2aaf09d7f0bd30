/**
 * Projects the identity events into `users` and `password_resets` (token hash → user, for the reset
 * confirmation lookup). Runs inline in the append transaction; the unique `email_lower` makes a
 * second registration with the same address (in any letter case) roll its append back.
 */
import type { Queryable } from '../db/types.js';
import { countsSchema, moveCount } from '../eventstore/counts.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { erasedLabel, placeholder } from '../shredding/index.js';
import type { UserEvent } from './user.decider.js';
import { STAFF_INVITATIONS_SCHEMA, USERS_COUNTS, USERS_SCHEMA, type UserRow } from './users.schema.js';

export const PASSWORD_RESETS_SCHEMA = `
CREATE TABLE IF NOT EXISTS password_resets (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS password_resets_user ON password_resets (user_id);
`;

/**
 * The unique key of an address. An erased member's row keeps no address: its key is `erased:<id>`
 * (unique per member), so the address is free for a new registration, live and after a rebuild (when
 * the erased member's registration already reads as the placeholder).
 */
export const emailKey = (userId: string, email: string) => (email === erasedLabel(userId) ? `erased:${userId}` : email.toLowerCase());

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
          emailKey(d.userId, d.email),
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
    case 'UserSuspended':
      // Not approved while suspended: every guard and the access decision read these columns.
      await tx.run(`UPDATE users SET status = 'suspended', approved = 0 WHERE id = ?`, [event.data.userId]);
      return;
    case 'UserReinstated':
      await tx.run(`UPDATE users SET status = 'approved', approved = 1 WHERE id = ?`, [event.data.userId]);
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
    case 'EmailChanged':
      // The unique email_lower rolls the append back if the address was taken since the request.
      await tx.run('UPDATE users SET email = ?, email_lower = ?, email_verified = 1 WHERE id = ?', [
        event.data.email,
        event.data.email.toLowerCase(),
        event.data.userId,
      ]);
      return;
    case 'ProfileUpdated':
      await tx.run('UPDATE users SET first_name = ?, last_name = ? WHERE id = ?', [
        event.data.firstName,
        event.data.lastName,
        event.data.userId,
      ]);
      return;
    case 'StaffInvited': {
      // Only the newest link to the account works.
      const d = event.data;
      await tx.run('DELETE FROM staff_invitations WHERE user_id = ?', [d.userId]);
      await tx.run(
        `INSERT INTO staff_invitations (token_hash, user_id, email, staff_role, invited_by, invited_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [d.tokenHash, d.userId, d.email, d.staffRole, d.invitedBy, d.invitedAt, d.expiresAt],
      );
      return;
    }
    case 'StaffJoined': {
      // The unique email_lower rolls the acceptance back if the address got an account since the invitation.
      const d = event.data;
      await tx.run('DELETE FROM staff_invitations WHERE user_id = ?', [d.userId]);
      await tx.run(
        `INSERT INTO users (id, email, email_lower, first_name, last_name, date_of_birth, password_hash, role, status,
           approved, email_verified, created_at, approved_at, staff_role)
         VALUES (?, ?, ?, ?, '', '', ?, 'admin', 'approved', 1, 1, ?, ?, ?)`,
        [d.userId, d.email, emailKey(d.userId, d.email), d.displayName, d.passwordHash, d.joinedAt, d.joinedAt, d.staffRole],
      );
      return;
    }
    case 'StaffRoleChanged':
      await tx.run('UPDATE users SET staff_role = ? WHERE id = ?', [event.data.staffRole, event.data.userId]);
      return;
    case 'StaffRemoved':
      // The row stays (the history names the removed member, `email` included); its address is freed
      // (`email_lower` becomes `removed:<id>`, unique per account) so the owner can invite it again: a
      // new invitation makes a new account, with nothing of the old one's sessions or second factors.
      await tx.run('UPDATE users SET staff_removed_at = ?, email_lower = ? WHERE id = ?', [
        event.data.removedAt,
        `removed:${event.data.userId}`,
        event.data.userId,
      ]);
      await tx.run('DELETE FROM password_resets WHERE user_id = ?', [event.data.userId]);
      return;
    case 'MemberErased': {
      // Every personal column replaced by its placeholder; status, dates and membership stay.
      const id = event.data.userId;
      await tx.run(
        `UPDATE users SET email = ?, email_lower = ?, first_name = ?, last_name = ?, date_of_birth = '', password_hash = '',
           geo_country = NULL, geo_region = NULL, erased_at = ? WHERE id = ?`,
        [erasedLabel(id), `erased:${id}`, placeholder('firstName', id), placeholder('lastName', id), event.data.erasedAt, id],
      );
      await tx.run('DELETE FROM password_resets WHERE user_id = ?', [id]);
      return;
    }
  }
}

/** Events that can change an account's status or role (the counted groups). */
const COUNTED = new Set([
  'UserRegistered',
  'UserApproved',
  'UserRejected',
  'UserSuspended',
  'UserReinstated',
  'AdminRoleGranted',
  'MemberErased',
  'StaffJoined',
  'StaffRemoved',
]);

/**
 * `<status>:<role>`, or `erased:<role>` once erased (an erased account is no longer a pending or
 * active member), `removed:admin` for a removed staff member.
 */
async function userGroup(tx: Queryable, id: string) {
  const row = await tx.get<{ status: string; role: string; erased_at: string | null; staff_removed_at: string | null }>(
    'SELECT status, role, erased_at, staff_removed_at FROM users WHERE id = ?',
    [id],
  );
  if (!row) return undefined;
  return { key: `${row.erased_at ? 'erased' : row.staff_removed_at ? 'removed' : row.status}:${row.role}` };
}

export const usersProjection: Projection = {
  name: 'users',
  // 2: `erased_at` and the MemberErased placeholders (crypto-shredding).
  // 3: `users_counts`, the dashboard's counters kept beside the rows.
  // 4: erased accounts counted apart (`erased:<role>`), not as pending or active members; suspension.
  // 5: staff accounts (issue 42): `staff_role`, `staff_removed_at`, `staff_invitations`.
  // 6: a removed staff member's address is freed (`email_lower` = `removed:<id>`): it can be invited again.
  version: 6,
  tables: ['users', 'password_resets', 'staff_invitations', USERS_COUNTS],
  schema: USERS_SCHEMA + PASSWORD_RESETS_SCHEMA + STAFF_INVITATIONS_SCHEMA + countsSchema(USERS_COUNTS),
  async apply(tx: Queryable, event: RecordedEvent) {
    if (!event.streamId.startsWith('user-')) return;
    if (!COUNTED.has(event.type)) return applyUserEvent(tx, event as unknown as UserEvent);
    // The dashboard's counters (accounts by status and role) move with the row. A registration
    // creates the row (its INSERT fails if the row is there), so it was in no group before.
    const id = (event.data as { userId: string }).userId;
    const before = event.type === 'UserRegistered' || event.type === 'StaffJoined' ? undefined : await userGroup(tx, id);
    await applyUserEvent(tx, event as unknown as UserEvent);
    await moveCount(tx, USERS_COUNTS, before, await userGroup(tx, id));
  },
};

/**
 * A member's membership columns (`membership_status`, `subscription_status`): identity owns the
 * `users` table, billing's projection decides the values from the subscription events and sets them
 * here, inline in the same append transaction. Every projection rebuilds together, identity's
 * before billing's (modules.ts), so the row is there when billing replays.
 */
export async function setMembership(
  tx: Queryable,
  userId: string,
  membership: { membershipStatus: UserRow['membership_status']; subscriptionStatus: UserRow['subscription_status'] },
): Promise<void> {
  await tx.run('UPDATE users SET membership_status = ?, subscription_status = ? WHERE id = ?', [
    membership.membershipStatus,
    membership.subscriptionStatus,
    userId,
  ]);
}
