import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './sender.js';
import { messageIdFor } from './transport.js';

describe('mail sender helpers', () => {
  it('derives a stable Message-ID from the outbox key and the sender domain', () => {
    const id = messageIdFor('user-approved:e1', 'Members <no-reply@members.example.test>');
    expect(id).toMatch(/^<[0-9a-f]{32}@members\.example\.test>$/);
    expect(messageIdFor('user-approved:e1', 'no-reply@members.example.test')).toBe(id);
    expect(messageIdFor('user-approved:e2', 'no-reply@members.example.test')).not.toBe(id);
  });
  it('backs off from 30 s, doubling, capped at an hour', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(30)).toBe(3_600_000);
  });
});
