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
  | 'annual_plan_required'
  | 'not_yet_available'
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
  /** Not spec copy (issue 40): a behind-the-scenes video, exclusive to the annual plan. */
  annual_plan_required: 'This video is exclusive to the annual plan. Upgrade to the Annual Premium plan to watch it.',
  /** Not spec copy (issue 40): the viewer's audience gets the video later; `{date}` is `formatReleaseDate(availableAt)`. */
  not_yet_available: 'Coming to your plan on {date}',
} as const;

export interface AccessVideo {
  /** 'free' | 'premium' | 'vip'; anything else is refused. */
  accessLevel: string;
  /** 'annual': only annual subscribers (and admins) may watch it, whatever its level; null or absent: the level decides. */
  exclusiveTo?: string | null;
  /** When the video is released (ISO 8601); before it only admins find it. Null or absent: no schedule. */
  publishAt?: string | null;
  /** When this viewer's audience may watch it (`publishAt` + their delay, see `availableAtFor`); null or absent: now. */
  availableAt?: string | null;
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
  /** 'admin' previews every video at any level and state (issue 40; the region rule still applies). */
  role?: string | null;
  /** The plan of the active subscription ('monthly' | 'annual'), null or absent without one. */
  plan?: string | null;
}

export interface AccessInput {
  video: AccessVideo | null | undefined;
  geo: AccessGeo | null | undefined;
  user: AccessUser | null | undefined;
  /** The time of the decision (a schedule's `publishAt` and `availableAt` are compared with it); default: now. */
  now?: Date | number;
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

const deny = (reason: AccessDeniedReason, remedy: AccessRemedy, message?: string): AccessDecision => ({
  allowed: false,
  reason,
  message: message ?? (reason === 'geo_loading' ? null : ACCESS_MESSAGES[reason]),
  remedy,
});

const ALLOWED: AccessDecision = { allowed: true, reason: 'allowed', message: null, remedy: null };
const KNOWN_LEVELS: readonly string[] = ['free', 'premium', 'vip'];
const DAY_MS = 86_400_000;

const releaseDateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * A release date as the member reads it, in UTC: "3 December 2026" (the `not_yet_available` message's `{date}`).
 * @example formatReleaseDate('2026-12-03T09:00:00Z') // '3 December 2026'
 */
export function formatReleaseDate(iso: string): string {
  return releaseDateFormat.format(new Date(iso));
}

/** The site config's `releases` (GET /api/site): days after `publishAt` each audience gets a scheduled video. */
export interface ReleaseDelays {
  delayDaysByPlan: { monthly: number; annual: number };
  freeDelayDays: number;
}

/**
 * How many days after `publishAt` this audience may watch a video: a subscriber their plan's delay (the
 * smaller of it and the free delay on a free video), a member without a plan (free videos only) the free delay.
 * @example audienceDelayDays({ plan: 'monthly', accessLevel: 'premium' }, releases) // releases.delayDaysByPlan.monthly
 */
export function audienceDelayDays(audience: { plan: string | null | undefined; accessLevel: string }, releases: ReleaseDelays): number {
  const plan = audience.plan === 'annual' || audience.plan === 'monthly' ? audience.plan : null;
  if (!plan) return releases.freeDelayDays;
  const byPlan = releases.delayDaysByPlan[plan];
  return audience.accessLevel === 'free' ? Math.min(byPlan, releases.freeDelayDays) : byPlan;
}

/**
 * When an audience may watch a scheduled video (`publishAt` + `delayDays`), as ISO 8601; null when there is
 * no schedule or that time has come (the Video entity's `availableAt`).
 * @example availableAtFor('2026-12-01T00:00:00.000Z', 2, Date.parse('2026-12-02T00:00:00Z')) // '2026-12-03T00:00:00.000Z'
 */
export function availableAtFor(publishAt: string | null | undefined, delayDays: number, now: Date | number = Date.now()): string | null {
  if (!publishAt) return null;
  const at = Date.parse(publishAt) + delayDays * DAY_MS;
  return at > +now ? new Date(at).toISOString() : null;
}

/**
 * Decides whether this user may watch this video, in the spec's order.
 * @example accessDecision({ video: { accessLevel: 'premium' }, geo: { blocked: false }, user }).allowed
 */
export function accessDecision(input: AccessInput): AccessDecision {
  const { video, geo, user } = input;
  const now = input.now === undefined ? Date.now() : +input.now;
  if (!video) return deny('video_not_found', 'back');
  // Before its release a video is not found, except by an admin previewing it.
  const scheduled = !!video.publishAt && Date.parse(video.publishAt) > now;
  if (scheduled && user?.role !== 'admin') return deny('video_not_found', 'back');
  if (!geo || geo.loading) return deny('geo_loading', 'wait');
  if (geo.blocked) return deny('region_blocked', 'back');
  if (!user) return deny('not_logged_in', 'login');
  // A suspended member is refused like one not approved, with their own message.
  if (user.status === 'suspended') return deny('suspended', null);
  // Issue 40: the creator previews her whole library, whatever its level, exclusivity or schedule.
  if (user.role === 'admin' && KNOWN_LEVELS.includes(video.accessLevel)) return ALLOWED;
  if (!isApproved(user)) return deny('not_approved', null);
  if (video.exclusiveTo === 'annual' && KNOWN_LEVELS.includes(video.accessLevel)) {
    if (!(hasActiveSubscription(user) && user.plan === 'annual')) return deny('annual_plan_required', 'subscribe');
  } else
    switch (video.accessLevel) {
      case 'free':
        break;
      case 'premium':
        if (!hasActiveSubscription(user)) return deny('subscription_required', 'subscribe');
        break;
      case 'vip':
        if (!hasActiveSubscription(user)) return deny('vip_subscription_required', 'subscribe');
        break;
      default:
        return deny('invalid_access_level', 'back');
    }
  if (video.availableAt && Date.parse(video.availableAt) > now)
    return deny('not_yet_available', 'wait', ACCESS_MESSAGES.not_yet_available.replace('{date}', formatReleaseDate(video.availableAt)));
  return ALLOWED;
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
