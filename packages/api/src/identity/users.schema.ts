/**
 * The `users` read model: one row per account, projected from the identity events, with the
 * subscription columns (`membership_status`, `subscription_status`) kept by the billing projection.
 * Other areas read it through users.queries.ts (e.g. `findMemberStanding`); only projections write it.
 */
export const USERS_SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  email_lower TEXT NOT NULL UNIQUE,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  date_of_birth TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'member',
  status TEXT NOT NULL DEFAULT 'pending',
  approved INTEGER NOT NULL DEFAULT 0,
  email_verified INTEGER NOT NULL DEFAULT 0,
  geo_country TEXT,
  geo_region TEXT,
  created_at TEXT NOT NULL,
  approved_at TEXT,
  rejected_at TEXT,
  membership_status TEXT NOT NULL DEFAULT 'inactive',
  subscription_status TEXT,
  erased_at TEXT,
  staff_role TEXT,
  staff_removed_at TEXT
);
CREATE INDEX IF NOT EXISTS users_status ON users (status, created_at, id);
`;

/**
 * Invitations to the staff waiting to be accepted (token hash → the invited account's id), projected
 * from `StaffInvited`; accepting, a newer invitation to the account, or the link's expiry ends one.
 */
export const STAFF_INVITATIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS staff_invitations (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  email TEXT NOT NULL,
  staff_role TEXT NOT NULL,
  invited_by TEXT NOT NULL,
  invited_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS staff_invitations_user ON staff_invitations (user_id);
`;

/** Counters of accounts by `<status>:<role>` (eventstore/counts.ts), kept by the users projection. */
export const USERS_COUNTS = 'users_counts';

export interface UserRow {
  id: string;
  email: string;
  email_lower: string;
  first_name: string;
  last_name: string;
  date_of_birth: string;
  password_hash: string;
  role: 'admin' | 'member';
  status: 'pending' | 'approved' | 'rejected' | 'suspended';
  approved: number;
  email_verified: number;
  geo_country: string | null;
  geo_region: string | null;
  created_at: string;
  approved_at: string | null;
  rejected_at: string | null;
  membership_status: 'active' | 'inactive';
  subscription_status: 'active' | 'canceled' | 'past_due' | 'unpaid' | null;
  /** Set once the member is erased (MemberErased): the personal columns then hold placeholders. */
  erased_at: string | null;
  /** A staff member's role (@members/ui/staffRoles); null for members and for admins from before staff roles (owners). */
  staff_role: string | null;
  /** Set once the owner removed the staff member: the account no longer signs in and its tokens stop. */
  staff_removed_at: string | null;
}
