/** The reply mail's rule (replyMail.policy.ts): given the facts, the outcome; and the mail's words. */
import { describe, expect, it } from 'vitest';
import { type ReplyMailFacts, replyMail, replyMailOutcome } from './replyMail.policy.js';

const STARTED = '2026-05-01T10:00:00.000Z';
const facts = (over: Partial<ReplyMailFacts> = {}): ReplyMailFacts => ({
  member: { role: 'member', status: 'approved' },
  enabled: true,
  unread: 3,
  seenAt: '2026-05-01T09:00:00.000Z',
  startedAt: STARTED,
  now: new Date('2026-05-01T10:05:00.000Z'),
  mailedToday: 0,
  perDay: 3,
  ...over,
});

describe('reply mail rule', () => {
  it('mails an approved member with unread replies, the setting on, not seen since the burst began', () => {
    expect(replyMailOutcome(facts())).toBe('mailed');
    expect(replyMailOutcome(facts({ seenAt: null }))).toBe('mailed');
  });

  it('sends nothing to a member who is not approved now, or erased, or an admin', () => {
    for (const status of ['suspended', 'rejected', 'pending'])
      expect(replyMailOutcome(facts({ member: { role: 'member', status } }))).toBe('not_active');
    expect(replyMailOutcome(facts({ member: undefined }))).toBe('not_active');
    expect(replyMailOutcome(facts({ member: { role: 'admin', status: 'approved' } }))).toBe('not_active');
  });

  it('sends nothing once read, when turned off, when seen online since the burst began, past the daily cap, or a day late', () => {
    expect(replyMailOutcome(facts({ unread: 0 }))).toBe('read');
    expect(replyMailOutcome(facts({ enabled: false }))).toBe('opted_out');
    expect(replyMailOutcome(facts({ seenAt: STARTED }))).toBe('online');
    expect(replyMailOutcome(facts({ mailedToday: 3 }))).toBe('daily_cap');
    expect(replyMailOutcome(facts({ perDay: 0 }))).toBe('daily_cap');
    expect(replyMailOutcome(facts({ now: new Date('2026-05-02T10:00:01.000Z') }))).toBe('stale');
  });

  it('says only that a reply waits: a link to /chat and to the settings, which List-Unsubscribe names', () => {
    const mail = replyMail('https://videos.example.com');
    expect(mail.subject).toBe('You have a new reply');
    expect(mail.text).toContain('https://videos.example.com/chat\n');
    expect(mail.text).toContain('https://videos.example.com/account#notifications');
    expect(mail.headers).toEqual({ 'List-Unsubscribe': '<https://videos.example.com/account#notifications>' });
  });
});
