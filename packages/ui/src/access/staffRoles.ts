/**
 * The creator's team: the staff roles and what each may do, in one place (issue 42). The API's route
 * contract names one permission on every admin route and refuses a role without it (403
 * `auth.permission_required`); the OpenAPI document lists it; the authorization suite walks every
 * route × every role from this table; the web admin and the desktop console hide what a role may not
 * do. Every staff account is an admin account (`role: 'admin'`, the gate of `/admin`) with a
 * `staffRole`; the bootstrapped admin, and any admin without one, is the `owner`.
 */

export const STAFF_ROLES = ['owner', 'moderator', 'finance', 'support', 'editor'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** What an admin route asks of its caller (`describe({ access: 'admin', permission })`). */
export const STAFF_PERMISSIONS = [
  /** The approval queue: approve, reject, suspend, reinstate members. */
  'members.review',
  /** Find members by e-mail or name (answers carry e-mail addresses). */
  'members.search',
  /** A member's page and history (payment entries only with `payments`). */
  'members.history',
  /** Verify and reject payments (renewals included). */
  'payments',
  /** The dashboard's figures, revenue and viewing analytics. */
  'analytics',
  /** The audit tools: hash chain, checkpoints, payment replay, reconciliation. */
  'audit',
  /** The chat inbox and replies. */
  'chat',
  /** Custom video requests: quote, decline, deliver. */
  'requests',
  /** A live show's chat room: delete a message, mute a member for the show. */
  'live.chat',
  /** Videos, uploads, captions, releases, transcodes, imports; previewing a video not out yet (unpublished or scheduled). */
  'videos',
  /** Leaked-copy examinations (they name a member). */
  'forensics',
  /** Erase a member's account on a verified request. */
  'erasure',
  /** Transcode runner tokens. */
  'runners',
  /** Staff accounts: invite, change a role, remove; the record of staff reads. */
  'staff',
  /** The API's reference (the OpenAPI document outside development): every role. */
  'reference',
] as const;
export type StaffPermission = (typeof STAFF_PERMISSIONS)[number];

/** Each role's permissions: the owner has every one, the others their column and nothing else. */
export const ROLE_PERMISSIONS: Record<StaffRole, readonly StaffPermission[]> = {
  owner: STAFF_PERMISSIONS,
  moderator: ['members.review', 'members.search', 'members.history', 'live.chat', 'reference'],
  finance: ['members.search', 'members.history', 'payments', 'analytics', 'audit', 'reference'],
  support: ['chat', 'requests', 'live.chat', 'reference'],
  editor: ['videos', 'reference'],
};

/** What each role is for, in the admin screens' words. */
export const STAFF_ROLE_LABELS: Record<StaffRole, string> = {
  owner: 'Owner',
  moderator: 'Moderator',
  finance: 'Finance',
  support: 'Support',
  editor: 'Editor',
};

export const isStaffRole = (value: unknown): value is StaffRole => (STAFF_ROLES as readonly unknown[]).includes(value);

/** Whether `role` may do what `permission` names. */
export function can(role: StaffRole, permission: StaffPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** The message of a refusal for a missing permission (HTTP 403 `auth.permission_required`). */
export const permissionRequired = (permission: StaffPermission) =>
  `Your staff role does not allow this (it needs the "${permission}" permission).`;
