/** The member history lines: log order, words per event, who acted, and nothing secret copied out. */
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../eventstore/types.js';
import { memberHistory } from './memberHistory.js';

let position = 0;
function event(type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}, at = position): RecordedEvent {
  position += 1;
  return {
    eventId: `e${position}`,
    streamId: 's',
    version: 1,
    position: at || position,
    type,
    data,
    metadata: { at: `2026-01-0${(position % 9) + 1}T10:00:00.000Z`, ...metadata },
    recordedAt: '2026-01-01T10:00:00.000Z',
    prevHash: '',
    hash: '',
  };
}

describe('member history', () => {
  it('orders by log position, names the actor, and copies payment facts but never hashes of secrets', () => {
    const registered = event('UserRegistered', { userId: 'u1', role: 'member', passwordHash: 'argon2-secret' }, { actorId: null }, 1);
    const verified = event(
      'PaymentVerified',
      { paymentId: 'p1', userId: 'u1', planType: 'annual', amountSats: 500_000, txHash: 'ab'.repeat(32), verifiedBy: 'a1' },
      { actorId: 'a1' },
      5,
    );
    const approved = event('UserApproved', { userId: 'u1', approvedBy: 'a1' }, { actorId: 'a1' }, 2);
    const started = event('SecondFactorEnrolmentStarted', { userId: 'u1', recoveryCodeHashes: ['x'] }, { actorId: 'u1' }, 3);
    const lapsed = event('SubscriptionUnpaid', { userId: 'u1' }, { actorId: null, actor: 'billing-scheduler' }, 7);
    const reset = event('PasswordResetRequested', { userId: 'u1', tokenHash: 'th-secret' }, { actorId: null }, 6);
    const erased = event('MemberErased', { userId: 'u1', reason: 'Verified request' }, { actorId: 'a1' }, 9);

    const lines = memberHistory([verified, erased, approved, registered, started, lapsed, reset]);
    expect(lines.map((l) => [l.position, l.summary, l.actorId, l.systemActor])).toEqual([
      [1, 'Registered', 'u1', null],
      [2, 'Approved', 'a1', null],
      [5, 'Payment verified: Annual, 0.005 BTC', 'a1', null],
      [6, 'Password reset requested', null, null],
      [7, 'Subscription unpaid', null, 'billing-scheduler'],
      [9, 'Erased: Verified request', 'a1', null],
    ]);
    expect(lines[2]?.details).toEqual({ paymentId: 'p1', amountSats: 500_000, planType: 'annual', txHash: 'ab'.repeat(32) });
    expect(lines.map((l) => l.category)).toEqual(['account', 'approval', 'payment', 'security', 'subscription', 'erasure']);
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it('shows an event it does not know by its type', () => {
    expect(memberHistory([event('SomethingNew', { userId: 'u1' }, {}, 1)])[0]?.summary).toBe('SomethingNew');
  });
});
