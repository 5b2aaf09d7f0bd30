/** Who the signed-in user is allowed to be, by spec §4 and §6 (approval itself: `access/accessDecision.ts`). */
import { isApproved } from '../access/accessDecision';

export interface SessionUserLike {
  email?: string;
  role?: string;
  status?: string;
  approved?: boolean;
  membershipStatus?: string;
  subscriptionStatus?: string | null;
}

/** Admin when the role is admin or the e-mail is the configured admin account's. */
export function isAdmin(user: SessionUserLike | null | undefined, adminEmail?: string): boolean {
  if (!user) return false;
  if (user.role === 'admin') return true;
  return Boolean(adminEmail && user.email && user.email.toLowerCase() === adminEmail.toLowerCase());
}

/** Where a rejected member's restricted session lives: their data export and account deletion. */
export const REJECTED_MEMBER_PATH = '/account/your-data';

/**
 * Where a fresh login lands: approved admins on /admin, approved members on /videos, a rejected
 * member on their data rights page, others on /pending-approval.
 * @example postLoginPath({ role: 'admin', approved: true }) // '/admin'
 */
export function postLoginPath(user: SessionUserLike, adminEmail?: string): string {
  if (user.status === 'rejected') return REJECTED_MEMBER_PATH;
  if (!isApproved(user)) return '/pending-approval';
  return isAdmin(user, adminEmail) ? '/admin' : '/videos';
}
