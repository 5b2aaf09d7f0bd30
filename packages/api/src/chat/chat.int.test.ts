/**
 * The chat over real HTTP and real WebSockets, on both stores: who may write (the access decision's
 * words), text rules, the rate limit, paging, the admin inbox's order (VIP first, then the longest
 * waiting), read state, tickets (single use, 60 s), the socket's push (own conversation only; every
 * conversation for an admin; resume with `after`, an admin's across every conversation), the export, and the erasure (no message text left
 * in the store's bytes).
 */
import { ACCESS_MESSAGES, CHAT_SUBSCRIPTION_REQUIRED } from '@members/ui/access';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { handshake, openSocket } from '../../test/sockets.js';
import { storeBytes } from '../../test/storeBytes.js';
import { billingTestKit, HASH, type Member, seedMember } from '../billing/billing.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';
import { CHAT_RATE_LIMIT, CHAT_RATE_LIMITED } from './routes.js';

let hashes = 5000;

interface Pushed {
  type: string;
  message: { id: string; text: string; from: string; sentAt: string; userId: string };
}

forEachStore('chat', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  const wsBase = () => server.url.replace(/^http/, 'ws');

  beforeAll(async () => {
    server = await startTestServer(kind, { clock: new TestClock(new Date('2026-06-01T10:00:00.000Z')) });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  async function subscribed(planType: 'monthly' | 'annual' = 'monthly'): Promise<Member> {
    const m = await seedMember(server);
    const s = await kit.submit(m, { planType, btcAmount: planType === 'monthly' ? '0.0005' : '0.005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }
  const send = (m: Member, text: string) => kit.api.post('/chat/messages', { text }, m.token);
  const reply = (userId: string, text: string) => kit.api.post(`/admin/chat/conversations/${userId}/messages`, { text }, kit.admin);
  const ticketOf = async (token: string) => {
    const t = await kit.api.post('/chat/ticket', undefined, token);
    expect(t.status).toBe(200);
    return t.body.data.ticket as string;
  };

  it('refuses a pending member and one without a subscription with the access decision words, writing nothing; both read their history', async () => {
    const pending = await seedMember(server, { approved: false });
    const unsubscribed = await seedMember(server);
    const head = await server.ctx.store.headPosition();
    const a = await send(pending, 'hello');
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ success: false, error: ACCESS_MESSAGES.not_approved, code: 'chat.access_denied' });
    expect(a.body.error).toBe('Your account is pending approval. You will receive an email when approved.');
    const b = await send(unsubscribed, 'hello');
    expect(b.status).toBe(403);
    expect(b.body.error).toBe(CHAT_SUBSCRIPTION_REQUIRED);
    expect(await server.ctx.store.headPosition()).toBe(head);
    expect((await kit.api.get('/chat/messages', pending.token)).body).toEqual({ success: true, data: { messages: [] } });
    expect((await kit.api.get('/chat/status', unsubscribed.token)).body.data).toEqual({
      canWrite: false,
      reason: CHAT_SUBSCRIPTION_REQUIRED,
      unread: 0,
      vip: false,
    });
    expect((await kit.api.get('/chat/messages')).status).toBe(401);
  });

  it('stores a subscribed member’s message trimmed, as text, and the admin reply; both read it oldest first, and page back', async () => {
    const m = await subscribed();
    const sent = await send(m, '  <script>alert(1)</script> see https://example.test  ');
    expect(sent.status).toBe(201);
    expect(sent.body.data.message).toMatchObject({ text: '<script>alert(1)</script> see https://example.test', from: 'member' });
    server.clock.advance(1000);
    const r = await reply(m.id, 'Hello from the team');
    expect(r.status).toBe(201);
    expect(r.body.data.message).toMatchObject({ text: 'Hello from the team', from: 'admin' });
    const mine = (await kit.api.get('/chat/messages', m.token)).body.data.messages;
    expect(mine.map((x: { from: string }) => x.from)).toEqual(['member', 'admin']);
    const theirs = (await kit.api.get(`/admin/chat/conversations/${m.id}/messages`, kit.admin)).body.data.messages;
    expect(theirs).toEqual(mine);
    const before = (await kit.api.get(`/chat/messages?before=${mine[1].id}&limit=5`, m.token)).body.data.messages;
    expect(before.map((x: { id: string }) => x.id)).toEqual([mine[0].id]);
    // The member's unread reply, then read.
    expect((await kit.api.get('/chat/status', m.token)).body.data).toMatchObject({ canWrite: true, unread: 1, vip: false });
    expect((await kit.api.post('/chat/read', undefined, m.token)).body.data).toEqual({ read: 1 });
    expect((await kit.api.get('/chat/status', m.token)).body.data.unread).toBe(0);
  });

  it('refuses empty, too long and non-string texts with a 400, and the 21st message in a minute with a 429', async () => {
    const m = await subscribed();
    for (const body of [{ text: '   ' }, { text: 'x'.repeat(2001) }, { text: 42 }, {}]) {
      const a = await kit.api.post('/chat/messages', body, m.token);
      expect(a.status).toBe(400);
      expect(a.body.success).toBe(false);
    }
    expect((await send(m, 'x'.repeat(2000))).status).toBe(201);
    for (let i = 1; i < CHAT_RATE_LIMIT; i++) expect((await send(m, `n${i}`)).status).toBe(201);
    const limited = await send(m, 'one too many');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe(CHAT_RATE_LIMITED);
    server.clock.advance(61_000);
    expect((await send(m, 'a new minute')).status).toBe(201);
  });

  it('lists VIP (annual) conversations first, then the longest waiting; unread counts the member messages the team has not read', async () => {
    const early = await subscribed('monthly');
    const vip = await subscribed('annual');
    const late = await subscribed('monthly');
    expect((await send(early, 'first')).status).toBe(201);
    server.clock.advance(60_000);
    expect((await send(late, 'second')).status).toBe(201);
    server.clock.advance(60_000);
    expect((await send(vip, 'third, but VIP')).status).toBe(201);
    expect((await send(vip, 'again')).status).toBe(201);
    const list = (await kit.api.get('/admin/chat/conversations', kit.admin)).body.data.conversations as {
      userId: string;
      vip: boolean;
      plan: string;
      unread: number;
      waitingSince: string | null;
    }[];
    const ours = list.filter((c) => [early.id, vip.id, late.id].includes(c.userId));
    expect(ours.map((c) => c.userId)).toEqual([vip.id, early.id, late.id]);
    expect(ours[0]).toMatchObject({ vip: true, plan: 'annual', unread: 2 });
    expect(ours[1]).toMatchObject({ vip: false, plan: 'monthly', unread: 1 });
    // Every VIP before every non-VIP in the whole list.
    expect(list.findIndex((c) => !c.vip)).toBeGreaterThan(list.findLastIndex((c) => c.vip));
    // A reply ends the wait; reading clears the unread count.
    await reply(early.id, 'answered');
    expect((await kit.api.post(`/admin/chat/conversations/${early.id}/read`, undefined, kit.admin)).body.data).toEqual({ read: 1 });
    const after = (await kit.api.get('/admin/chat/conversations', kit.admin)).body.data.conversations.find(
      (c: { userId: string }) => c.userId === early.id,
    );
    expect(after).toMatchObject({ unread: 0, waitingSince: null });
    // The admin stats' answer time per tier: the VIP's wait (from their first message) is the only VIP answer on this server.
    server.clock.advance(180_000);
    expect((await reply(vip.id, 'VIP answered')).status).toBe(201);
    const stats = (await kit.api.get('/admin/stats', kit.admin)).body.data.chatAnswers;
    expect(stats.vip).toEqual({ answered: 1, medianSeconds: 180 });
    expect(stats.standard.answered).toBeGreaterThanOrEqual(1);
    expect((await kit.api.get('/admin/chat/conversations/no-such-member/messages', kit.admin)).status).toBe(404);
    expect((await kit.api.get('/admin/chat/conversations', early.token)).status).toBe(403);
  });

  it("pushes a conversation's new messages to the member's socket, never another member's; an admin's socket gets every conversation", async () => {
    const alice = await subscribed();
    const bob = await subscribed();
    const aliceSocket = await openSocket<Pushed>(`${wsBase()}/api/chat/socket?ticket=${await ticketOf(alice.token)}`);
    const bobSocket = await openSocket<Pushed>(`${wsBase()}/api/chat/socket?ticket=${await ticketOf(bob.token)}`);
    const adminSocket = await openSocket<Pushed>(`${wsBase()}/api/chat/socket?ticket=${await ticketOf(kit.admin)}`);
    try {
      const toAlice = (await reply(alice.id, 'for Alice only')).body.data.message;
      const fromBob = (await send(bob, 'Bob asks')).body.data.message;
      expect((await aliceSocket.next(1))[0]).toEqual({ type: 'message', message: { ...toAlice, userId: alice.id } });
      expect((await bobSocket.next(1))[0]).toEqual({ type: 'message', message: { ...fromBob, userId: bob.id } });
      const adminGot = await adminSocket.next(2);
      expect(adminGot.map((p) => p.message.id).sort()).toEqual([toAlice.id, fromBob.id].sort());
      // The server hands a message to every socket it concerns at once, in the order stored: the admin
      // has both, so a stray push is on its way already, and would come before the next message on
      // the same socket. One more for each, and nothing else came.
      const laterA = (await reply(alice.id, 'later for Alice')).body.data.message;
      const laterB = (await reply(bob.id, 'later for Bob')).body.data.message;
      await aliceSocket.next(2);
      await bobSocket.next(2);
      expect(aliceSocket.received.map((p) => [p.message.id, p.message.userId])).toEqual([
        [toAlice.id, alice.id],
        [laterA.id, alice.id],
      ]);
      expect(bobSocket.received.map((p) => [p.message.id, p.message.userId])).toEqual([
        [fromBob.id, bob.id],
        [laterB.id, bob.id],
      ]);
    } finally {
      aliceSocket.close();
      bobSocket.close();
      adminSocket.close();
    }
  });

  it('resumes a reconnecting socket after its last message id', async () => {
    const m = await subscribed();
    const first = (await send(m, 'one')).body.data.message;
    const second = (await reply(m.id, 'two')).body.data.message;
    const third = (await send(m, 'three')).body.data.message;
    const s = await openSocket<Pushed>(`${wsBase()}/api/chat/socket?ticket=${await ticketOf(m.token)}&after=${first.id}`);
    try {
      expect((await s.next(2)).map((p) => p.message.id)).toEqual([second.id, third.id]);
    } finally {
      s.close();
    }
  });

  it("resumes an admin's reconnecting socket after its last message id, across every conversation", async () => {
    const alice = await subscribed();
    const bob = await subscribed();
    const seen = (await send(alice, 'seen before the drop')).body.data.message;
    const missedA = (await send(bob, 'missed from Bob')).body.data.message;
    const missedB = (await reply(alice.id, 'missed reply to Alice')).body.data.message;
    const s = await openSocket<Pushed>(`${wsBase()}/api/chat/socket?ticket=${await ticketOf(kit.admin)}&after=${seen.id}`);
    try {
      const got = await s.next(2);
      expect(got.map((p) => [p.message.id, p.message.userId])).toEqual([
        [missedA.id, bob.id],
        [missedB.id, alice.id],
      ]);
      // A later message still comes live, once: a second copy would come before the message after it.
      const live = (await send(alice, 'live again')).body.data.message;
      expect((await s.next(3))[2]?.message.id).toBe(live.id);
      const next = (await reply(bob.id, 'and the next one')).body.data.message;
      expect((await s.next(4)).map((p) => p.message.id)).toEqual([missedA.id, missedB.id, live.id, next.id]);
    } finally {
      s.close();
    }
  });

  it('refuses a used, expired or unknown ticket, and a plain GET of the socket', async () => {
    const m = await subscribed();
    // A refused upgrade is a bare 401 (the adapter answers the handshake without the error's body), never a 101.
    const refused = { status: 401, body: '' };
    const used = await ticketOf(m.token);
    expect(await handshake(`${wsBase()}/api/chat/socket?ticket=${used}`)).toEqual({ status: 101, body: '' });
    expect(await handshake(`${wsBase()}/api/chat/socket?ticket=${used}`)).toEqual(refused);
    const old = await ticketOf(m.token);
    server.clock.advance(61_000);
    expect(await handshake(`${wsBase()}/api/chat/socket?ticket=${old}`)).toEqual(refused);
    expect(await handshake(`${wsBase()}/api/chat/socket?ticket=made-up`)).toEqual(refused);
    const plain = await kit.api.get(`/chat/socket?ticket=${await ticketOf(m.token)}`);
    expect(plain.status).toBe(426);
  });

  it('exports the member’s messages, and their erasure leaves none of the conversation’s text in the store’s bytes', async () => {
    const m = await subscribed();
    const secret = `chat-secret-${Date.now().toString(36)}`;
    const answer = `team-answer-${Date.now().toString(36)}`;
    expect((await send(m, secret)).status).toBe(201);
    expect((await reply(m.id, answer)).status).toBe(201);
    const exported = await kit.api.get('/users/me/export', m.token);
    expect(exported.status).toBe(200);
    // The export is a JSON attachment, not an envelope.
    const { chatMessages } = exported.body as unknown as { chatMessages: { text: string; from: string }[] };
    expect(chatMessages.map((x) => [x.from, x.text])).toEqual([
      ['member', secret],
      ['admin', answer],
    ]);
    // Sealed in the log: the text is not in clear in the event's stored data.
    const stored = await server.ctx.rawStore.readStream(`chat-${m.id}`);
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain(secret);
    expect((await kit.api.post(`/admin/users/${m.id}/erase`, { reason: 'verified request' }, kit.admin)).status).toBe(200);
    const bytes = storeBytes(server.store);
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(answer)).toBe(false);
    // The conversation's shape stays; its text reads empty.
    const rows = await server.ctx.db.all<{ text: string; sender: string }>(
      'SELECT text, sender FROM chat_messages WHERE user_id = ? ORDER BY position',
      [m.id],
    );
    expect(rows).toEqual([
      { text: '', sender: 'member' },
      { text: '', sender: 'admin' },
    ]);
  });
});
