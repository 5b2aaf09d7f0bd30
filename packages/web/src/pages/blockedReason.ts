/**
 * Why /blocked was reached, from the refusal's code (app/api.ts passes it as `?reason=`): the page
 * names that reason, the spec's region sentence only for a region block.
 */
import { ACCESS_MESSAGES } from '@members/ui/access';

export type BlockedKind = 'region' | 'suspended' | 'not_approved' | 'not_allowed' | 'unknown';

/** Spec §4's words for the region case, with the page's full stop. */
export const REGION_SENTENCE = 'Content not available in your region.';
/** The spec's words for a page the account may not see (§2 /admin, and the API's admin-only refusal). */
export const NOT_ALLOWED_SENTENCE = "You don't have permission to access this page.";
/** A refusal the page has no words for (or /blocked opened by hand): true whatever the reason was. */
export const UNKNOWN_SENTENCE = 'This page or action is not available to your account.';

const KINDS: Record<string, BlockedKind> = {
  'access.region_blocked': 'region',
  'access.suspended': 'suspended',
  'auth.login_suspended': 'suspended',
  'access.not_approved': 'not_approved',
  'payment.approval_required': 'not_approved',
  'auth.admin_only': 'not_allowed',
  // A staff role without the route's permission (issue 42).
  'auth.permission_required': 'not_allowed',
  'auth.not_approved': 'not_allowed',
  'user.email_change_not_allowed': 'not_allowed',
  'payment.not_yours': 'not_allowed',
  'chat.not_own_message': 'not_allowed',
};

/**
 * @example blockedReason('auth.admin_only') // { kind: 'not_allowed', sentence: "You don't have permission to access this page." }
 */
export function blockedReason(code: string | null | undefined): { kind: BlockedKind; sentence: string } {
  const kind = (code && KINDS[code]) || 'unknown';
  switch (kind) {
    case 'region':
      return { kind, sentence: REGION_SENTENCE };
    case 'suspended':
      return { kind, sentence: ACCESS_MESSAGES.suspended };
    case 'not_approved':
      return { kind, sentence: ACCESS_MESSAGES.not_approved };
    case 'not_allowed':
      return { kind, sentence: NOT_ALLOWED_SENTENCE };
    default:
      return { kind: 'unknown', sentence: UNKNOWN_SENTENCE };
  }
}
