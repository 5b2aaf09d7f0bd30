/**
 * The video access decision of spec section 4, as one pure function shared by the API (which
 * enforces it on the stream) and the web app (which explains it), so both always agree.
 * No React, no I/O: the caller gathers the video, the geo result and the user first.
 */
import { ERROR_CODES, type ErrorCode } from '../api/schemas/errorCodes';

export type AccessRemedy = 'subscribe' | 'back' | 'login' | 'wait' | null;

export type AccessDeniedReason =
  | 'video_not_found'
  | 'geo_loading'
  | 'region_blocked'
  | 'not_logged_in'
  | 'not_approved'
  | 'suspended'
  | 'subscription_required'
  | 'vip_subscription_required'
  | 'invalid_access_level';

export type AccessDecision =
  | { allowed: true; reason: 'allowed'; message: null; remedy: null }
  | { allowed: false; reason: AccessDeniedReason; message: string | null; remedy: AccessRemedy };

/** The spec's words, exactly. */
export const ACCESS_MESSAGES = {
  video_not_found: 'Video not found',
  region_blocked: 'Content not available in your region',
  not_logged_in: 'Please log in to view videos',
  not_approved: 'Your account is pending approval. You will receive an email when approved.',
  /** Not spec copy: an admin suspended an approved member (docs/members.md). */
  suspended: 'Your account has been suspended. Please contact support if you believe this is a mistake.',
  subscription_required: 'Active subscription required to view premium content',
  vip_subscription_required: 'VIP subscription required to view this exclusive content',
  invalid_access_level: 'Invalid video access level',
} as const;

export interface AccessVideo {
  /** 'free' | 'premium' | 'vip'; anything else is refused. */
  accessLevel: string;
}

export interface AccessGeo {
  /** The geo check has not answered yet (the browser waits; the server never is). */
  loading?: boolean;
  blocked: boolean;
}

/** The user as stored after login (web) or as read from the users read model (API). */
export interface AccessUser {
  approved?: boolean | number | null;
  status?: string | null;
  membershipStatus?: string | null;
  subscriptionStatus?: string | null;
}

export interface AccessInput {
  video: AccessVideo | null | undefined;
  geo: AccessGeo | null | undefined;
  user: AccessUser | null | undefined;
}

/** Spec §5: subscribing needs an approved account; the API refuses with, and the page shows, these words. */
export const SUBSCRIBING_NEEDS_APPROVAL = 'Your account must be approved before subscribing. Please wait for admin approval.';
/** What paying answers a suspended member (not spec copy). */
export const SUBSCRIBING_WHILE_SUSPENDED = 'Your account has been suspended, so you cannot subscribe. Please contact support.';

/**
 * The approval rule, the only copy (spec section 4): approved is true, or status is approved or
 * active. The API (paying, streaming), the web app (post-login landing, session) and this
 * decision all call it; nobody else restates it.
 */
export function isApproved(user: AccessUser | null | undefined): boolean {
  if (!user || user.status === 'suspended') return false;
  return user.approved === true || user.approved === 1 || user.status === 'approved' || user.status === 'active';
}

/** An active subscription: membershipStatus active (section 6) or subscriptionStatus active (section 3). */
export function hasActiveSubscription(user: AccessUser | null | undefined): boolean {
  if (!user) return false;
  return user.membershipStatus === 'active' || user.subscriptionStatus === 'active';
}

const deny = (reason: AccessDeniedReason, remedy: AccessRemedy): AccessDecision => ({
  allowed: false,
  reason,
  message: reason === 'geo_loading' ? null : ACCESS_MESSAGES[reason],
  remedy,
});

/**
 * Decides whether this user may watch this video, in the spec's order.
 * @example accessDecision({ video: { accessLevel: 'premium' }, geo: { blocked: false }, user }).allowed
 */
export function accessDecision(input: AccessInput): AccessDecision {
  const { video, geo, user } = input;
  if (!video) return deny('video_not_found', 'back');
  if (!geo || geo.loading) return deny('geo_loading', 'wait');
  if (geo.blocked) return deny('region_blocked', 'back');
  if (!user) return deny('not_logged_in', 'login');
  // A suspended member is refused like one not approved, with their own message.
  if (user.status === 'suspended') return deny('suspended', null);
  if (!isApproved(user)) return deny('not_approved', null);
  switch (video.accessLevel) {
    case 'free':
      return { allowed: true, reason: 'allowed', message: null, remedy: null };
    case 'premium':
      return hasActiveSubscription(user)
        ? { allowed: true, reason: 'allowed', message: null, remedy: null }
        : deny('subscription_required', 'subscribe');
    case 'vip':
      return hasActiveSubscription(user)
        ? { allowed: true, reason: 'allowed', message: null, remedy: null }
        : deny('vip_subscription_required', 'subscribe');
    default:
      return deny('invalid_access_level', 'back');
  }
}

/**
 * The API's error code for a refusal (api/schemas/errorCodes.ts): `access.<reason>`, a missing video
 * as any missing video. The server never waits for the geo check, so `geo_loading` does not reach it.
 */
export function accessErrorCode(reason: AccessDeniedReason): ErrorCode {
  if (reason === 'video_not_found') return 'video.not_found';
  if (reason === 'geo_loading') return 'access.region_blocked';
  return `access.${reason}`;
}

/** The HTTP status the API answers a decision with: its code's (401 only for "not logged in"). */
export function accessHttpStatus(decision: AccessDecision): number {
  return decision.allowed ? 200 : ERROR_CODES[accessErrorCode(decision.reason)].status;
}

/** Spec §9: the plans' "Live chat access"; without an active subscription a member reads their history but cannot write. */
export const CHAT_SUBSCRIPTION_REQUIRED = 'Active subscription required to use live chat. You can still read your messages.';

export type ChatAccess =
  | { allowed: true; reason: 'allowed'; message: null }
  | { allowed: false; reason: 'not_logged_in' | 'suspended' | 'not_approved' | 'subscription_required'; message: string };

/**
 * May this member write in the live chat (issue 30): approved (the §4 rule and words) with an active
 * subscription. Reading their own history needs neither. The API enforces it; the chat page explains it.
 * @example chatAccess(user).allowed
 */
export function chatAccess(user: AccessUser | null | undefined): ChatAccess {
  if (!user) return { allowed: false, reason: 'not_logged_in', message: ACCESS_MESSAGES.not_logged_in };
  if (user.status === 'suspended') return { allowed: false, reason: 'suspended', message: ACCESS_MESSAGES.suspended };
  if (!isApproved(user)) return { allowed: false, reason: 'not_approved', message: ACCESS_MESSAGES.not_approved };
  if (!hasActiveSubscription(user)) return { allowed: false, reason: 'subscription_required', message: CHAT_SUBSCRIPTION_REQUIRED };
  return { allowed: true, reason: 'allowed', message: null };
}

/** Custom video requests are an annual (VIP) plan feature (spec §9, "Custom video requests"). */
export const CUSTOM_REQUESTS_NEED_ANNUAL = 'An annual (VIP) subscription is required to request custom videos';

export type CustomRequestAccess =
  | { allowed: true; reason: 'allowed'; message: null }
  | {
      allowed: false;
      reason: 'not_logged_in' | 'suspended' | 'not_approved' | 'subscription_required' | 'vip_subscription_required';
      message: string;
    };

/**
 * May this member request a custom video (issue 30): approved (the §4 rule and words), with an
 * active annual subscription (`plan`: the plan of their current subscription, null without one).
 * The API enforces it; the requests page explains it.
 * @example customRequestAccess(user, 'monthly').reason // 'vip_subscription_required'
 */
export function customRequestAccess(user: AccessUser | null | undefined, plan: string | null | undefined): CustomRequestAccess {
  if (!user) return { allowed: false, reason: 'not_logged_in', message: ACCESS_MESSAGES.not_logged_in };
  if (user.status === 'suspended') return { allowed: false, reason: 'suspended', message: ACCESS_MESSAGES.suspended };
  if (!isApproved(user)) return { allowed: false, reason: 'not_approved', message: ACCESS_MESSAGES.not_approved };
  if (!hasActiveSubscription(user) || plan !== 'annual')
    return { allowed: false, reason: 'vip_subscription_required', message: CUSTOM_REQUESTS_NEED_ANNUAL };
  return { allowed: true, reason: 'allowed', message: null };
}
