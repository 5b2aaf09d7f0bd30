/** Who the signed-in user is allowed to be, by spec §4 and §6. */
import { hasActiveSubscription as accessHasActiveSubscription, isApproved as accessIsApproved } from '../access/accessDecision';

export interface SessionUserLike {
  email?: string;
  role?: string;
  status?: string;
  approved?: boolean;
  membershipStatus?: string;
  subscriptionStatus?: string | null;
}

/** Approval and subscription come from the shared access decision, so the UI and the API agree. */
export function isApproved(user: SessionUserLike | null | undefined): boolean {
  return Boolean(user && accessIsApproved(user));
}

/** Admin when the role is admin or the e-mail is the configured admin account's. */
export function isAdmin(user: SessionUserLike | null | undefined, adminEmail?: string): boolean {
  if (!user) return false;
  if (user.role === 'admin') return true;
  return Boolean(adminEmail && user.email && user.email.toLowerCase() === adminEmail.toLowerCase());
}

export function hasActiveSubscription(user: SessionUserLike | null | undefined): boolean {
  return Boolean(user && accessHasActiveSubscription(user));
}

/**
 * Where a fresh login lands: approved admins on /admin, approved members on /videos, others on /pending-approval.
 * @example postLoginPath({ role: 'admin', approved: true }) // '/admin'
 */
export function postLoginPath(user: SessionUserLike, adminEmail?: string): string {
  if (!isApproved(user)) return '/pending-approval';
  return isAdmin(user, adminEmail) ? '/admin' : '/videos';
}
