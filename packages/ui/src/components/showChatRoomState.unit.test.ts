import { describe, expect, it } from 'vitest';
import type { ShowChatMessage } from '../api/types';
import {
  emptyRoom,
  parseShowChatPush,
  roomWithMessage,
  roomWithout,
  roomWithPage,
  roomWithPush,
  showChatRefusal,
} from './showChatRoomState';

const msg = (id: string, postedAt: string, showId = 'show-1'): ShowChatMessage => ({
  id,
  showId,
  authorId: `user-${id}`,
  author: 'Lina V.',
  text: `text ${id}`,
  postedAt,
});

describe('a show chat room on the page', () => {
  it('keeps the messages in the order they were posted, each once', () => {
    let room = roomWithPage(emptyRoom, [msg('a', '2026-12-06T20:00:00.000Z'), msg('c', '2026-12-06T20:00:02.000Z')]);
    // A push from another process can arrive after a later one.
    room = roomWithMessage(room, msg('b', '2026-12-06T20:00:01.000Z'));
    // The POST's answer and the socket's push bring the same message.
    room = roomWithMessage(room, msg('b', '2026-12-06T20:00:01.000Z'));
    expect(room.messages.map((m) => m.id)).toEqual(['a', 'b', 'c']);
  });

  it('never brings back a message staff removed (a replay after a reconnect, a late answer)', () => {
    let room = roomWithPage(emptyRoom, [msg('a', '2026-12-06T20:00:00.000Z')]);
    room = roomWithout(room, 'a');
    expect(room.messages).toEqual([]);
    room = roomWithPage(room, [msg('a', '2026-12-06T20:00:00.000Z')]);
    expect(room.messages).toEqual([]);
  });

  it("applies the room's pushes and ignores another room's", () => {
    let room = roomWithPush(emptyRoom, { type: 'message', message: msg('a', '2026-12-06T20:00:00.000Z') }, 'show-1');
    room = roomWithPush(room, { type: 'message', message: msg('x', '2026-12-06T20:00:00.000Z', 'show-2') }, 'show-1');
    expect(room.messages.map((m) => m.id)).toEqual(['a']);
    expect(roomWithPush(room, { type: 'deleted', showId: 'show-2', messageId: 'a' }, 'show-1').messages).toHaveLength(1);
    expect(roomWithPush(room, { type: 'deleted', showId: 'show-1', messageId: 'a' }, 'show-1').messages).toHaveLength(0);
  });

  it('reads only its own frames from the socket', () => {
    const m = msg('a', '2026-12-06T20:00:00.000Z');
    expect(parseShowChatPush(JSON.stringify({ type: 'message', message: m }))).toEqual({ type: 'message', message: m });
    expect(parseShowChatPush(JSON.stringify({ type: 'deleted', showId: 'show-1', messageId: 'a' }))).toEqual({
      type: 'deleted',
      showId: 'show-1',
      messageId: 'a',
    });
    expect(parseShowChatPush('not json')).toBeNull();
    expect(parseShowChatPush(JSON.stringify({ type: 'ping' }))).toBeNull();
    expect(parseShowChatPush('null')).toBeNull();
  });

  it("words a refused post by the API's code, else shows the API's message", () => {
    expect(showChatRefusal({ status: 409, code: 'live.chat_closed', message: 'x' })).toBe('The show has ended: its chat is closed.');
    expect(showChatRefusal({ status: 403, code: 'live.chat_muted', message: 'x' })).toMatch(/muted you/);
    expect(showChatRefusal({ status: 429, code: 'rate_limited', message: 'x' })).toMatch(/too fast/);
    expect(showChatRefusal({ status: 403, code: 'access.subscription_required', message: 'A subscription is required' })).toBe(
      'A subscription is required',
    );
    expect(showChatRefusal(null)).toBe('Could not send the message.');
  });
});
