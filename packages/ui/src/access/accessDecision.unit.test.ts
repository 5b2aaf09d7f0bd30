import { describe, expect, it } from 'vitest';
import {
  ACCESS_MESSAGES,
  type AccessUser,
  accessDecision,
  accessHttpStatus,
  CHAT_SUBSCRIPTION_REQUIRED,
  chatAccess,
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
