import { describe, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import { CHAT_TEXT_REQUIRED, CHAT_TEXT_TOO_LONG, type ChatEvent, chatDecider } from './chat.decider.js';

const { given } = deciderSpec(chatDecider);
const MEMBER = 'member-1';
const ADMIN = 'admin-1';
const T1 = '2026-05-01T10:00:00.000Z';
const T2 = '2026-05-01T10:05:00.000Z';

const sent = (messageId: string, from: 'member' | 'admin', text = 'hello'): ChatEvent => ({
  type: 'ChatMessageSent',
  data: { messageId, userId: MEMBER, from, authorId: from === 'member' ? MEMBER : ADMIN, text, sentAt: T1 },
});
const send = (messageId: string, text: string, from: 'member' | 'admin' = 'member') =>
  ({ type: 'SendChatMessage', messageId, userId: MEMBER, from, authorId: from === 'member' ? MEMBER : ADMIN, text, now: T1 }) as const;

describe('chat decider: send', () => {
  it('records the message, its text trimmed', () => {
    thenEvents(given([]).when(send('m1', '  hello <b>there</b>  ')), [sent('m1', 'member', 'hello <b>there</b>')]);
  });

  it('refuses an empty text and one over 2000 characters, and accepts exactly 2000', () => {
    thenError(given([]).when(send('m1', '   \n ')), 'validation.invalid_input', CHAT_TEXT_REQUIRED);
    thenError(given([]).when(send('m1', 'x'.repeat(2001))), 'validation.invalid_input', CHAT_TEXT_TOO_LONG);
    thenEvents(given([]).when(send('m1', 'x'.repeat(2000))), [sent('m1', 'member', 'x'.repeat(2000))]);
  });

  it('refuses a message id already in the conversation', () => {
    thenError(given([sent('m1', 'member')]).when(send('m1', 'again')), 'chat.message_exists', 'This message was already sent');
  });
});

describe('chat decider: read', () => {
  const read = (reader: 'member' | 'admin') =>
    ({ type: 'MarkChatRead', userId: MEMBER, reader, readerId: reader === 'member' ? MEMBER : ADMIN, now: T2 }) as const;

  it("records the reader up to the other side's newest message", () => {
    thenEvents(given([sent('m1', 'member'), sent('a1', 'admin'), sent('m2', 'member')]).when(read('admin')), [
      { type: 'ChatMessagesRead', data: { userId: MEMBER, reader: 'admin', readerId: ADMIN, upTo: 'm2', readAt: T2 } },
    ]);
  });

  it('records nothing when nothing from the other side is unread', () => {
    thenEvents(given([sent('m1', 'member')]).when(read('member')), []);
    const readOnce: ChatEvent = {
      type: 'ChatMessagesRead',
      data: { userId: MEMBER, reader: 'admin', readerId: ADMIN, upTo: 'm1', readAt: T2 },
    };
    thenEvents(given([sent('m1', 'member'), readOnce]).when(read('admin')), []);
  });
});

describe('chat decider: delete', () => {
  const del = (messageId: string, by: 'member' | 'admin') =>
    ({ type: 'DeleteChatMessage', messageId, userId: MEMBER, by, actorId: by === 'member' ? MEMBER : ADMIN, now: T2 }) as const;

  it("lets a member delete their own message, not the team's; an admin deletes any", () => {
    const history = [sent('m1', 'member'), sent('a1', 'admin')];
    thenEvents(given(history).when(del('m1', 'member')), [
      { type: 'ChatMessageDeleted', data: { messageId: 'm1', userId: MEMBER, by: 'member', actorId: MEMBER, deletedAt: T2 } },
    ]);
    thenError(given(history).when(del('a1', 'member')), 'chat.not_own_message', 'You can only delete your own messages');
    thenEvents(given(history).when(del('a1', 'admin')), [
      { type: 'ChatMessageDeleted', data: { messageId: 'a1', userId: MEMBER, by: 'admin', actorId: ADMIN, deletedAt: T2 } },
    ]);
  });

  it('answers not found for an unknown message and nothing for one already deleted', () => {
    thenError(given([]).when(del('nope', 'admin')), 'chat.message_not_found', 'Message not found');
    const deleted: ChatEvent = {
      type: 'ChatMessageDeleted',
      data: { messageId: 'm1', userId: MEMBER, by: 'member', actorId: MEMBER, deletedAt: T2 },
    };
    thenEvents(given([sent('m1', 'member'), deleted]).when(del('m1', 'member')), []);
  });
});

describe('chat decider: the reply mail setting', () => {
  const set = (enabled: boolean) => ({ type: 'SetChatReplyMail', userId: MEMBER, enabled, now: T2 }) as const;
  const wasSet = (enabled: boolean): ChatEvent => ({ type: 'ChatReplyMailSet', data: { userId: MEMBER, enabled, setAt: T2 } });

  it('is on by default: turning it on records nothing, turning it off records the choice', () => {
    thenEvents(given([]).when(set(true)), []);
    thenEvents(given([sent('a1', 'admin')]).when(set(false)), [wasSet(false)]);
  });

  it('turns back on after being turned off; the same choice twice records it once', () => {
    thenEvents(given([wasSet(false)]).when(set(false)), []);
    thenEvents(given([wasSet(false)]).when(set(true)), [wasSet(true)]);
  });
});
