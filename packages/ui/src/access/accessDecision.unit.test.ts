import { describe, expect, it } from 'vitest';
import {
  ACCESS_MESSAGES,
  type AccessUser,
  accessDecision,
  accessErrorCode,
  accessHttpStatus,
  audienceDelayDays,
  availableAtFor,
  CHAT_SUBSCRIPTION_REQUIRED,
  chatAccess,
  formatReleaseDate,
  hasActiveSubscription,
  isApproved,
} from './accessDecision';

const open = { blocked: false };
const visitor = null;
const pending: AccessUser = { approved: false, status: 'pending', membershipStatus: 'inactive', subscriptionStatus: null };
const rejected: AccessUser = { approved: 0, status: 'rejected', membershipStatus: 'inactive' };
const member: AccessUser = { approved: true, status: 'approved', membershipStatus: 'inactive', subscriptionStatus: null };
const subscriber: AccessUser = { approved: 1, status: 'approved', membershipStatus: 'active', subscriptionStatus: 'active' };
const admin: AccessUser = { approved: true, status: 'approved', membershipStatus: 'inactive' };

describe('accessDecision — the order of spec section 4', () => {
  it('1. no video: Video not found (before anything else)', () => {
    const d = accessDecision({ video: null, geo: undefined, user: undefined });
    expect(d).toEqual({ allowed: false, reason: 'video_not_found', message: 'Video not found', remedy: 'back' });
    expect(accessHttpStatus(d)).toBe(404);
  });

  it('2. geo still loading: wait, even for a subscriber', () => {
    for (const geo of [undefined, null, { loading: true, blocked: false }, { loading: true, blocked: true }]) {
      const d = accessDecision({ video: { accessLevel: 'free' }, geo, user: subscriber });
      expect(d).toEqual({ allowed: false, reason: 'geo_loading', message: null, remedy: 'wait' });
    }
  });

  it('3. region blocked beats not logged in and a subscription', () => {
    for (const user of [visitor, pending, subscriber]) {
      const d = accessDecision({ video: { accessLevel: 'free' }, geo: { blocked: true }, user });
      expect(d).toMatchObject({ allowed: false, message: 'Content not available in your region', remedy: 'back' });
      expect(accessHttpStatus(d)).toBe(403);
    }
  });

  it('4. not logged in: log in', () => {
    const d = accessDecision({ video: { accessLevel: 'free' }, geo: open, user: visitor });
    expect(d).toEqual({ allowed: false, reason: 'not_logged_in', message: 'Please log in to view videos', remedy: 'login' });
    expect(accessHttpStatus(d)).toBe(401);
  });

  it('5. not approved: pending message, whatever the level', () => {
    for (const accessLevel of ['free', 'premium', 'vip', 'gold'])
      for (const user of [pending, rejected, { ...pending, membershipStatus: 'active' }]) {
        const d = accessDecision({ video: { accessLevel }, geo: open, user });
        expect(d.message).toBe('Your account is pending approval. You will receive an email when approved.');
        expect(d.remedy).toBeNull();
      }
  });
});

describe('accessDecision — a suspended member', () => {
  it('is refused every level with the suspension message, even with an active subscription or a stale approved flag', () => {
    const suspended: AccessUser = { approved: true, status: 'suspended', membershipStatus: 'active', subscriptionStatus: 'active' };
    expect(isApproved(suspended)).toBe(false);
    for (const accessLevel of ['free', 'premium', 'vip']) {
      const d = accessDecision({ video: { accessLevel }, geo: open, user: suspended });
      expect(d).toEqual({ allowed: false, reason: 'suspended', message: ACCESS_MESSAGES.suspended, remedy: null });
      expect(d.message).toMatch(/suspended/);
      expect(accessHttpStatus(d)).toBe(403);
    }
  });
});

describe('accessDecision — every role and level', () => {
  const subscribe = (msg: string) => ({ allowed: false, message: msg, remedy: 'subscribe' });
  const allowed = { allowed: true, reason: 'allowed', message: null, remedy: null };
  const table: [string, AccessUser | null, Record<string, object>][] = [
    [
      'visitor',
      visitor,
      Object.fromEntries(['free', 'premium', 'vip', 'gold'].map((l) => [l, { message: ACCESS_MESSAGES.not_logged_in, remedy: 'login' }])),
    ],
    [
      'approved member without subscription',
      member,
      {
        free: allowed,
        premium: subscribe('Active subscription required to view premium content'),
        vip: subscribe('VIP subscription required to view this exclusive content'),
        gold: { allowed: false, message: 'Invalid video access level', remedy: 'back' },
      },
    ],
    ['subscriber', subscriber, { free: allowed, premium: allowed, vip: allowed, gold: { message: 'Invalid video access level' } }],
    [
      'admin without subscription (no bypass in the spec)',
      admin,
      {
        free: allowed,
        premium: subscribe(ACCESS_MESSAGES.subscription_required),
        vip: subscribe(ACCESS_MESSAGES.vip_subscription_required),
        gold: { message: 'Invalid video access level' },
      },
    ],
  ];
  for (const [role, user, byLevel] of table)
    for (const [accessLevel, expected] of Object.entries(byLevel))
      it(`${role} × ${accessLevel}`, () => {
        expect(accessDecision({ video: { accessLevel }, geo: open, user })).toMatchObject(expected);
      });
});

describe('helpers', () => {
  it('approved means approved true/1, or status approved or active', () => {
    expect(isApproved({ approved: true })).toBe(true);
    expect(isApproved({ approved: 1 })).toBe(true);
    expect(isApproved({ approved: false, status: 'approved' })).toBe(true);
    expect(isApproved({ approved: false, status: 'active' })).toBe(true);
    expect(isApproved({ approved: 0, status: 'pending' })).toBe(false);
    expect(isApproved({})).toBe(false);
  });
  it('an active subscription is membershipStatus or subscriptionStatus active', () => {
    expect(hasActiveSubscription({ membershipStatus: 'active' })).toBe(true);
    expect(hasActiveSubscription({ subscriptionStatus: 'active' })).toBe(true);
    for (const s of ['canceled', 'past_due', 'unpaid', null])
      expect(hasActiveSubscription({ membershipStatus: 'inactive', subscriptionStatus: s })).toBe(false);
  });
  it('allowed answers 200', () => {
    expect(accessHttpStatus(accessDecision({ video: { accessLevel: 'free' }, geo: open, user: member }))).toBe(200);
  });
});

describe('accessDecision — behind-the-scenes, schedules and the admin preview (issue 40)', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const monthly: AccessUser = { ...subscriber, plan: 'monthly' };
  const annual: AccessUser = { ...subscriber, plan: 'annual' };
  const creator: AccessUser = { approved: true, status: 'approved', membershipStatus: 'inactive', role: 'admin' };

  it('an annual-only video streams to an annual subscriber and refuses any other member with the annual message', () => {
    for (const accessLevel of ['free', 'premium', 'vip']) {
      const video = { accessLevel, exclusiveTo: 'annual' };
      expect(accessDecision({ video, geo: open, user: annual, now }).allowed).toBe(true);
      for (const user of [monthly, member, subscriber, { ...annual, membershipStatus: 'canceled', subscriptionStatus: 'canceled' }]) {
        const d = accessDecision({ video, geo: open, user, now });
        expect(d).toEqual({
          allowed: false,
          reason: 'annual_plan_required',
          message: 'This video is exclusive to the annual plan. Upgrade to the Annual Premium plan to watch it.',
          remedy: 'subscribe',
        });
        expect(accessErrorCode(d.reason as 'annual_plan_required')).toBe('access.annual_plan_required');
        expect(accessHttpStatus(d)).toBe(403);
      }
    }
  });

  it('before publishAt a video is not found for members and visitors; an audience whose day has not come waits, with the date', () => {
    const scheduled = { accessLevel: 'free', publishAt: '2026-12-02T00:00:00Z' };
    for (const user of [visitor, member, annual]) {
      const d = accessDecision({ video: scheduled, geo: open, user, now });
      expect(d.reason).toBe('video_not_found');
      expect(accessHttpStatus(d)).toBe(404);
    }
    const released = { accessLevel: 'premium', publishAt: '2026-11-30T00:00:00Z', availableAt: '2026-12-03T00:00:00.000Z' };
    const d = accessDecision({ video: released, geo: open, user: monthly, now });
    expect(d).toEqual({ allowed: false, reason: 'not_yet_available', message: 'Coming to your plan on 3 December 2026', remedy: 'wait' });
    expect(accessErrorCode(d.reason as 'not_yet_available')).toBe('access.not_yet_available');
    expect(accessHttpStatus(d)).toBe(403);
    // A member without a subscription is told to subscribe first, not to wait.
    expect(accessDecision({ video: released, geo: open, user: member, now }).reason).toBe('subscription_required');
    expect(accessDecision({ video: { ...released, availableAt: null }, geo: open, user: monthly, now }).allowed).toBe(true);
    expect(accessDecision({ video: { ...released, availableAt: '2026-12-01T11:59:59Z' }, geo: open, user: monthly, now }).allowed).toBe(
      true,
    );
  });

  it('an admin previews every level, exclusive and scheduled video without a subscription; the region rule still applies', () => {
    for (const accessLevel of ['free', 'premium', 'vip'])
      for (const extra of [{}, { exclusiveTo: 'annual' }, { publishAt: '2027-01-01T00:00:00Z', availableAt: '2027-01-05T00:00:00Z' }]) {
        const video = { accessLevel, ...extra };
        expect(accessDecision({ video, geo: open, user: creator, now })).toEqual({
          allowed: true,
          reason: 'allowed',
          message: null,
          remedy: null,
        });
        expect(accessDecision({ video, geo: { blocked: true }, user: creator, now }).reason).toBe('region_blocked');
      }
    expect(accessDecision({ video: { accessLevel: 'gold' }, geo: open, user: creator, now }).reason).toBe('invalid_access_level');
  });

  it('each audience gets publishAt + its delay; a subscriber on a free video the smaller of theirs and the free one', () => {
    const releases = { delayDaysByPlan: { monthly: 3, annual: 0 }, freeDelayDays: 5 };
    expect(audienceDelayDays({ plan: 'annual', accessLevel: 'premium' }, releases)).toBe(0);
    expect(audienceDelayDays({ plan: 'monthly', accessLevel: 'vip' }, releases)).toBe(3);
    expect(audienceDelayDays({ plan: null, accessLevel: 'free' }, releases)).toBe(5);
    expect(audienceDelayDays({ plan: 'monthly', accessLevel: 'free' }, releases)).toBe(3);
    expect(audienceDelayDays({ plan: 'monthly', accessLevel: 'free' }, { ...releases, freeDelayDays: 1 })).toBe(1);
    const twoDaysAgo = '2026-11-29T12:00:00.000Z';
    expect(availableAtFor(twoDaysAgo, 3, now)).toBe('2026-12-02T12:00:00.000Z');
    expect(availableAtFor(twoDaysAgo, 2, now)).toBeNull();
    expect(availableAtFor(null, 3, now)).toBeNull();
    expect(formatReleaseDate('2026-12-03T23:30:00-02:00')).toBe('4 December 2026');
  });
});

describe('chatAccess — who may write in the live chat', () => {
  it('refuses a visitor, a pending account and an approved member without a subscription, each with its words', () => {
    expect(chatAccess(null)).toMatchObject({ allowed: false, message: ACCESS_MESSAGES.not_logged_in });
    expect(chatAccess({ status: 'pending', approved: 0, membershipStatus: 'active' })).toMatchObject({
      allowed: false,
      reason: 'not_approved',
      message: 'Your account is pending approval. You will receive an email when approved.',
    });
    // A suspended member keeps their approval flag; the suspension's own words.
    expect(chatAccess({ status: 'suspended', approved: 1, membershipStatus: 'active' })).toMatchObject({
      allowed: false,
      reason: 'suspended',
      message: ACCESS_MESSAGES.suspended,
    });
    expect(chatAccess({ status: 'approved', approved: 1, membershipStatus: 'inactive' })).toMatchObject({
      allowed: false,
      reason: 'subscription_required',
      message: CHAT_SUBSCRIPTION_REQUIRED,
    });
  });

  it('lets an approved member with an active subscription write', () => {
    expect(chatAccess({ status: 'approved', approved: 1, membershipStatus: 'active' })).toEqual({
      allowed: true,
      reason: 'allowed',
      message: null,
    });
  });
});
