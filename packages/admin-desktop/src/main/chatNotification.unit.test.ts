/**
 * The desktop notification for a member's message (issue 44, finding 1): names and texts stored
 * before the API refused control and direction characters are cleaned before they reach the OS, and
 * a name cannot pass for the console's own "VIP · " prefix.
 */
import { expect, it } from 'vitest';
import { chatNotification } from './chatLive.js';

const message = (text: string) => ({ id: 'm1', text, from: 'member' as const, sentAt: '2026-01-01T00:00:00.000Z', userId: 'u1' });

it('cleans the title and body: no escape sequences, control characters, direction overrides or zero-width spaces', () => {
  expect(
    chatNotification(message('hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes'), { displayName: 'Admin\u202e\u0007', vip: false }),
  ).toEqual({ title: 'Admin', body: 'hi [31mred [0m\nX-Injected: yes', userId: 'u1' });
  expect(chatNotification(message('abc\u202egnp.exe\u202c'), { displayName: 'Mona\u2067 Lee\u2069', vip: true })).toEqual({
    title: 'VIP · Mona Lee',
    body: 'abcgnp.exe',
    userId: 'u1',
  });
});

it('a name that begins with "VIP" is quoted; an empty or invisible one is "A member"', () => {
  expect(chatNotification(message('hello'), { displayName: 'VIP · Alice', vip: false }).title).toBe('“VIP · Alice”');
  expect(chatNotification(message('hello'), { displayName: 'vip alice', vip: true }).title).toBe('VIP · “vip alice”');
  expect(chatNotification(message('hello'), { displayName: 'Vipul Shah', vip: false }).title).toBe('Vipul Shah');
  expect(chatNotification(message('hello'), { displayName: '\u200b\u202e', vip: false }).title).toBe('A member');
  expect(chatNotification(message('hello'), undefined).title).toBe('A member');
});

it('still shortens a long body', () => {
  const body = chatNotification(message('x'.repeat(500)), { displayName: 'Kim', vip: false }).body;
  expect(body).toHaveLength(180);
  expect(body.endsWith('…')).toBe(true);
});
