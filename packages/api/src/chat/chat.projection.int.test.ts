/**
 * The chat read model (chat.projection.ts), given the chat events as the decider decides them on a
 * member's conversation, then its rows (live and rebuilt from the log).
 */
import { describe, it } from 'vitest';
import { billingProjection } from '../billing/billing.projection.js';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { userDecider, userStream } from '../identity/user.decider.js';
import { usersProjection } from '../identity/users.projection.js';
import { chatDecider, chatStream } from './chat.decider.js';
import { chatProjection } from './chat.projection.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const ADMIN = 'ad000000-0000-4000-8000-000000000003';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-02T09:10:00.000Z';
const T3 = '2026-03-02T09:20:00.000Z';
const T4 = '2026-03-02T09:30:00.000Z';

// After identity's and billing's (modules.ts order): a reply's tier is read from their tables.
const { given } = projectionSpec(chatProjection, { after: [usersProjection, billingProjection] });
const MESSAGES = 'SELECT id, user_id, sender, author_id, text, sent_at, deleted_at FROM chat_messages ORDER BY position';
const CONVERSATIONS =
  'SELECT user_id, last_message_at, waiting_since, admin_unread, member_unread FROM chat_conversations ORDER BY user_id';

function conversation(userId: string) {
  const s = stream(chatStream(userId));
  return {
    member: (messageId: string, text: string, now: string) =>
      s.decide(chatDecider, { type: 'SendChatMessage', messageId, userId, from: 'member', authorId: userId, text, now }),
    admin: (messageId: string, text: string, now: string) =>
      s.decide(chatDecider, { type: 'SendChatMessage', messageId, userId, from: 'admin', authorId: ADMIN, text, now }),
    read: (reader: 'member' | 'admin', now: string) =>
      s.decide(chatDecider, { type: 'MarkChatRead', userId, reader, readerId: reader === 'admin' ? ADMIN : userId, now }),
    del: (messageId: string, by: 'member' | 'admin', now: string) =>
      s.decide(chatDecider, { type: 'DeleteChatMessage', messageId, userId, by, actorId: by === 'admin' ? ADMIN : userId, now }),
    replyMail: (enabled: boolean, now: string) => s.decide(chatDecider, { type: 'SetChatReplyMail', userId, enabled, now }),
  };
}

describe('chat projection', () => {
  it('member messages wait and count unread for the team; a reply ends the wait and counts unread for the member', async () => {
    const a = conversation(ALICE);
    const m1 = a.member('m1', 'Hello', T1);
    const m2 = a.member('m2', 'Anyone?', T2);
    await given(m1, m2).thenTables({
      [MESSAGES]: [
        { id: 'm1', user_id: ALICE, sender: 'member', author_id: ALICE, text: 'Hello', sent_at: T1, deleted_at: null },
        { id: 'm2', user_id: ALICE, sender: 'member', author_id: ALICE, text: 'Anyone?', sent_at: T2, deleted_at: null },
      ],
      [CONVERSATIONS]: [{ user_id: ALICE, last_message_at: T2, waiting_since: T1, admin_unread: 2, member_unread: 0 }],
    });
    const b = conversation(ALICE);
    const replied = [b.member('m1', 'Hello', T1), b.member('m2', 'Anyone?', T2), b.admin('a1', 'Hi Alice', T3)];
    await given(...replied).thenRows(CONVERSATIONS, [
      { user_id: ALICE, last_message_at: T3, waiting_since: null, admin_unread: 2, member_unread: 1 },
    ]);
  });

  it('reads clear the reader side; a later member message waits again from its own time', async () => {
    const a = conversation(ALICE);
    const history = [
      a.member('m1', 'Hello', T1),
      a.admin('a1', 'Hi', T2),
      a.read('admin', T2),
      a.read('member', T3),
      a.member('m2', 'Thanks', T4),
    ];
    await given(...history).thenRows(CONVERSATIONS, [
      { user_id: ALICE, last_message_at: T4, waiting_since: T4, admin_unread: 1, member_unread: 0 },
    ]);
  });

  it('a reply that ends a wait records how long the member waited (from their first unanswered message); a second reply records nothing', async () => {
    const a = conversation(ALICE);
    const history = [
      a.member('m1', 'Hello', T1),
      a.member('m2', 'Still there?', T2),
      a.admin('a1', 'Yes', T3),
      a.admin('a2', 'Anything else?', T4),
    ];
    await given(...history).thenRows('SELECT reply_id, user_id, tier, waited_ms, answered_at FROM chat_answers ORDER BY answered_at', [
      { reply_id: 'a1', user_id: ALICE, tier: 'standard', waited_ms: Date.parse(T3) - Date.parse(T1), answered_at: T3 },
    ]);
  });

  it("a deletion blanks the text and leaves the counts; conversations don't mix", async () => {
    const a = conversation(ALICE);
    const b = conversation(BOB);
    await given(a.member('m1', 'Oops', T1), b.member('b1', 'Bob here', T2), a.del('m1', 'member', T3)).thenTables({
      [MESSAGES]: [
        { id: 'm1', user_id: ALICE, sender: 'member', author_id: ALICE, text: '', sent_at: T1, deleted_at: T3 },
        { id: 'b1', user_id: BOB, sender: 'member', author_id: BOB, text: 'Bob here', sent_at: T2, deleted_at: null },
      ],
      [CONVERSATIONS]: [
        { user_id: ALICE, last_message_at: T1, waiting_since: null, admin_unread: 0, member_unread: 0 },
        { user_id: BOB, last_message_at: T2, waiting_since: T2, admin_unread: 1, member_unread: 0 },
      ],
    });
  });

  it("the member's erasure blanks every message text of their conversation, the team's replies too", async () => {
    const u = stream(userStream(ALICE));
    const registered = u.decide(userDecider, {
      type: 'Register',
      data: {
        userId: ALICE,
        email: 'alice@example.test',
        firstName: 'Alice',
        lastName: 'L',
        dateOfBirth: '1990-05-04',
        passwordHash: 'h',
        role: 'member',
      },
      now: T1,
    });
    const a = conversation(ALICE);
    const erased = u.decide(userDecider, { type: 'Erase', erasedBy: ALICE, requestedBy: 'member', reason: null, now: T4 });
    await given(registered, a.member('m1', 'My secret', T2), a.admin('a1', 'Your secret reply', T3), erased).thenRows(
      'SELECT id, text FROM chat_messages ORDER BY position',
      [
        { id: 'm1', text: '' },
        { id: 'a1', text: '' },
      ],
    );
  });

  it("keeps each member's reply mail setting: no row while on by default, the last choice after a change", async () => {
    const a = conversation(ALICE);
    const b = conversation(BOB);
    const history = [b.replyMail(false, T1), a.replyMail(false, T2), a.replyMail(true, T3)];
    await given(...history).thenRows('SELECT user_id, enabled, set_at FROM chat_reply_mail ORDER BY user_id', [
      { user_id: ALICE, enabled: 1, set_at: T3 },
      { user_id: BOB, enabled: 0, set_at: T1 },
    ]);
  });
});
