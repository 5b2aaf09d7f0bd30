import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../api/types';
import { withMessage } from './ChatThread';

const msg = (id: string, second: number): ChatMessage => ({
  id,
  text: `message ${id}`,
  from: 'admin',
  sentAt: `2026-11-29T10:00:${String(second).padStart(2, '0')}.000Z`,
});

describe('withMessage', () => {
  it('places a push that overtook an earlier one by its time, not at the end', () => {
    let thread = withMessage(undefined, msg('a', 0));
    thread = withMessage(thread, msg('c', 2));
    thread = withMessage(thread, msg('b', 1));
    thread = withMessage(thread, msg('d', 3));
    expect(thread.map((m) => m.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps a message once, whether the push or the POST brought it first', () => {
    const thread = withMessage([msg('a', 0)], msg('a', 0));
    expect(thread.map((m) => m.id)).toEqual(['a']);
  });

  it('puts a message sent at the same time as the last one after it', () => {
    expect(withMessage([msg('a', 5)], msg('b', 5)).map((m) => m.id)).toEqual(['a', 'b']);
  });
});
