import { describe, expect, it } from 'vitest';
import { isApproved } from '../access/accessDecision';
import { formatDuration, parseDuration } from './duration';
import { postLoginPath } from './session';
import { subscriptionAction, subscriptionBadge } from './subscriptionBadge';

describe('formatDuration', () => {
  it.each([
    [0, '0:00'],
    [5, '0:05'],
    [59.9, '0:59'],
    [60, '1:00'],
    [754, '12:34'],
    [4503, '75:03'],
    [-1, '0:00'],
    [Number.NaN, '0:00'],
  ])('%s s → %s', (s, text) => expect(formatDuration(s)).toBe(text));

  it('parses the upload form text back', () => {
    expect(parseDuration('12:34')).toBe(754);
    expect(parseDuration('1:02:03')).toBe(3723);
    expect(parseDuration('12:60')).toBeUndefined();
    expect(parseDuration('abc')).toBeUndefined();
  });
});

describe('subscriptionBadge precedence', () => {
  it('cancel-at-period-end wins over every status', () => {
    for (const status of ['active', 'canceled', 'past_due', 'unpaid', 'weird']) {
      expect(subscriptionBadge({ status, cancelAtPeriodEnd: true }).label).toBe('Canceling at period end');
    }
  });
  it.each([
    ['active', 'Active'],
    ['canceled', 'Canceled'],
    ['past_due', 'Past Due'],
    ['unpaid', 'Unpaid'],
    ['trialing', 'trialing'],
  ])('%s → %s', (status, label) => expect(subscriptionBadge({ status, cancelAtPeriodEnd: false }).label).toBe(label));

  it('offers Cancel for active, Reactivate when set to cancel', () => {
    expect(subscriptionAction({ status: 'active', cancelAtPeriodEnd: false })).toBe('cancel');
    expect(subscriptionAction({ status: 'active', cancelAtPeriodEnd: true })).toBe('reactivate');
    expect(subscriptionAction({ status: 'past_due', cancelAtPeriodEnd: false })).toBeNull();
  });
});

describe('post-login redirect', () => {
  it('sends by approval and role', () => {
    expect(postLoginPath({ role: 'admin', approved: true })).toBe('/admin');
    expect(postLoginPath({ role: 'member', status: 'active' })).toBe('/videos');
    expect(postLoginPath({ role: 'member', status: 'approved', approved: false })).toBe('/videos');
    expect(postLoginPath({ role: 'admin', approved: false, status: 'pending' })).toBe('/pending-approval');
    expect(postLoginPath({ role: 'member', approved: false, status: 'rejected' })).toBe('/account/your-data');
    expect(postLoginPath({ role: 'member', approved: true, status: 'suspended' })).toBe('/pending-approval');
    expect(isApproved(null)).toBe(false);
  });
});
