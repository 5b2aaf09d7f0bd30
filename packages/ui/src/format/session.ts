/** Who the signed-in user is allowed to be, by spec §4 and §6. */

export interface SessionUserLike {
  email?: string;
  role?: string;
  status?: string;
  approved?: boolean;
  membershipStatus?: string;
  subscriptionStatus?: string | null;
}

/** 'Approved' means approved is true, or status is approved or active. */
export function isApproved(user: SessionUserLike | null | undefined): boolean {
  if (!user) return false;
  return user.approved === true || user.status === 'approved' || user.status === 'active';
}

/** Admin when the role is admin or the e-mail is the configured admin account's. */
export function isAdmin(user: SessionUserLike | null | undefined, adminEmail?: string): boolean {
  if (!user) return false;
  if (user.role === 'admin') return true;
  return Boolean(adminEmail && user.email && user.email.toLowerCase() === adminEmail.toLowerCase());
}

/** An active subscription, read from the membership (or subscription) status. */
export function hasActiveSubscription(user: SessionUserLike | null | undefined): boolean {
  return Boolean(user && (user.membershipStatus === 'active' || user.subscriptionStatus === 'active'));
}

/**
 * Where a fresh login lands: approved admins on /admin, approved members on /videos, others on /pending-approval.
 * @example postLoginPath({ role: 'admin', approved: true }) // '/admin'
 */
export function postLoginPath(user: SessionUserLike, adminEmail?: string): string {
  if (!isApproved(user)) return '/pending-approval';
  return isAdmin(user, adminEmail) ? '/admin' : '/videos';
}
