/** Reads of the `users` read model, and the User shape of spec §3 that the API answers with. */

import type { userSchema } from '@members/ui/api/schemas';
import { isStaffRole } from '@members/ui/staffRoles';
import type { z } from 'zod';
import { allIn } from '../db/inChunks.js';
import type { Queryable } from '../db/types.js';
import { readCounts } from '../eventstore/counts.js';
import type { AccountStanding } from '../http/auth.js';
import type { Page } from '../shared/paging.js';
import { USERS_COUNTS, type UserRow } from './users.schema.js';

/** The User of spec §3 as the API answers it: the shared schema the OpenAPI document and the clients use. */
export type UserDto = z.infer<typeof userSchema>;

export function geoLocationOf(row: Pick<UserRow, 'geo_country' | 'geo_region'>): UserDto['geoLocation'] {
  return row.geo_country ? { country: row.geo_country, region: row.geo_region ?? '' } : null;
}

export function toUserDto(row: UserRow): UserDto {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    staffRole: row.role === 'admin' ? (isStaffRole(row.staff_role) ? row.staff_role : 'owner') : null,
    status: row.status,
    approved: Number(row.approved) === 1,
    emailVerified: Number(row.email_verified) === 1,
    membershipStatus: row.membership_status,
    subscriptionStatus: row.subscription_status,
    registrationDate: row.created_at,
    createdAt: row.created_at,
    geoLocation: geoLocationOf(row),
  };
}

export function findUserById(q: Queryable, id: string): Promise<UserRow | undefined> {
  return q.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
}

/** The accounts of `ids` by id, in one query (an unknown id is absent; an erased account keeps its row, with `erased_at`). */
export async function usersByIds(q: Queryable, ids: readonly string[]): Promise<Map<string, UserRow>> {
  const rows = await allIn<UserRow>(q, ids, (marks) => `SELECT * FROM users WHERE id IN (${marks})`);
  return new Map(rows.map((r) => [r.id, r]));
}

/** The ids of every erased account (their rows stay, with `erased_at`). */
export async function erasedUserIds(q: Queryable): Promise<string[]> {
  return (await q.all<{ id: string }>('SELECT id FROM users WHERE erased_at IS NOT NULL ORDER BY id')).map((r) => r.id);
}

/** Every account in id order, `limit` at a time after `afterId` ('' for the first page). */
export function usersAfter(q: Queryable, afterId: string, limit: number): Promise<UserRow[]> {
  return q.all<UserRow>('SELECT * FROM users WHERE id > ? ORDER BY id LIMIT ?', [afterId, limit]);
}

/** What other areas may know of an account to authorize a call: role, approval, membership. */
/** The guards' view of an account (defined by the routes layer's authenticator port, provided here). */
export type MemberStanding = AccountStanding;

/**
 * The account's standing as the read model has it now (the guards and the access decision read this);
 * an erased member has none, nor a removed staff member (their token is then a 401 at once).
 */
export function findMemberStanding(q: Queryable, id: string): Promise<MemberStanding | undefined> {
  return q.get<MemberStanding>(
    `SELECT id, email, role, status, approved, membership_status, subscription_status, staff_role FROM users
     WHERE id = ? AND erased_at IS NULL AND staff_removed_at IS NULL`,
    [id],
  );
}

export function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  return q.get<UserRow>('SELECT * FROM users WHERE email_lower = ?', [email.trim().toLowerCase()]);
}

export async function findUserIdByResetToken(q: Queryable, tokenHash: string): Promise<string | undefined> {
  const row = await q.get<{ user_id: string }>('SELECT user_id FROM password_resets WHERE token_hash = ?', [tokenHash]);
  return row?.user_id;
}

/**
 * One page of pending accounts, oldest first (the admin approval table): a keyset read of the
 * `users_status (status, created_at, id)` index, `limit + 1` rows so the caller knows if more follow.
 */
export function pendingUsers(q: Queryable, page: Page): Promise<UserRow[]> {
  const [at, id] = page.after ?? ['', ''];
  return q.all<UserRow>(
    `SELECT * FROM users WHERE status = 'pending' AND (created_at > ? OR (created_at = ? AND id > ?))
     ORDER BY created_at, id LIMIT ?`,
    [at, at, id, page.limit + 1],
  );
}

export interface IdentityCounts {
  pendingApprovals: number;
  /** Approved members, neither suspended nor erased (admins are not members). */
  activeMembers: number;
}

/** Reads the users projection's precomputed counters (a few rows), never the users table itself. */
export async function identityCounts(q: Queryable): Promise<IdentityCounts> {
  const counts = await readCounts(q, USERS_COUNTS);
  let pending = 0;
  for (const [key, c] of counts) if (key.startsWith('pending:')) pending += c.n;
  return { pendingApprovals: pending, activeMembers: counts.get('approved:member')?.n ?? 0 };
}

/** Accounts whose e-mail or name contains `text` (any case), newest first, at most `limit` (the admin's member search). */
export function searchUsers(q: Queryable, text: string, limit: number): Promise<UserRow[]> {
  const like = `%${text
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return q.all<UserRow>(
    `SELECT * FROM users
     WHERE email_lower LIKE ? ESCAPE '\\' OR LOWER(first_name || ' ' || last_name) LIKE ? ESCAPE '\\'
     ORDER BY created_at DESC, id LIMIT ?`,
    [like, like, limit],
  );
}

/** An open staff invitation (staff_invitations) by its link's token hash. */
export interface StaffInvitationRow {
  token_hash: string;
  user_id: string;
  email: string;
  staff_role: string;
  invited_by: string;
  invited_at: string;
  expires_at: string;
}

export function findStaffInvitation(q: Queryable, tokenHash: string): Promise<StaffInvitationRow | undefined> {
  return q.get<StaffInvitationRow>('SELECT * FROM staff_invitations WHERE token_hash = ?', [tokenHash]);
}

/** The staff invitations not yet accepted whose link still works at `now`, newest first. */
export function openStaffInvitations(q: Queryable, now: Date): Promise<StaffInvitationRow[]> {
  return q.all<StaffInvitationRow>('SELECT * FROM staff_invitations WHERE expires_at > ? ORDER BY invited_at DESC, user_id', [
    now.toISOString(),
  ]);
}

interface StaffRow {
  id: string;
  email: string;
  first_name: string;
  staff_role: string | null;
  last_active_at: string | null;
}

const STAFF_SELECT = `SELECT u.id, u.email, u.first_name, u.staff_role,
    (SELECT MAX(COALESCE(s.last_used_at, s.created_at)) FROM refresh_sessions s WHERE s.user_id = u.id) AS last_active_at
  FROM users u WHERE u.role = 'admin' AND u.staff_removed_at IS NULL AND u.erased_at IS NULL`;

const toStaff = (row: StaffRow) => ({
  id: row.id,
  email: row.email,
  displayName: row.first_name,
  role: isStaffRole(row.staff_role) ? row.staff_role : ('owner' as const),
  lastActiveAt: row.last_active_at,
});

/** Every staff account not removed (owners included: an admin with no staff role is one), by name. */
export async function staffMembers(q: Queryable) {
  const rows = await q.all<StaffRow>(`${STAFF_SELECT} ORDER BY u.first_name, u.id`);
  return rows.map(toStaff);
}

export async function staffMember(q: Queryable, id: string) {
  const row = await q.get<StaffRow>(`${STAFF_SELECT} AND u.id = ?`, [id]);
  return row && toStaff(row);
}
