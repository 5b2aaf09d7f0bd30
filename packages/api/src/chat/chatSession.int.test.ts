/**
 * The chat's admin deletion and the socket's life bound to its session, over real HTTP and real
 * WebSockets on both stores: an admin deletes a member's message (its text leaves both sides'
 * view; another member's message id is a 404); an open socket is closed (code 4401) instead of
 * receiving the next message once its session was logged out or its member suspended.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { openSocket, within } from '../../test/sockets.js';
import { billingTestKit, HASH } from '../billing/billing.testkit.js';
import { approvedMember, cookieHeader } from '../identity/identity.testkit.js';
import { SESSION_ENDED_CLOSE } from './routes.js';

let hashes = 9100;

forEachStore('chat: admin deletion and sockets bound to their session', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  /** A member signed in through the routes (a real session), with a verified monthly subscription. */
  async function subscribed() {
    const m = await approvedMember(kit.api);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }
  const wsBase = () => server.url.replace(/^http/, 'ws');
  const socketOf = async (token: string) => {
    const t = await kit.api.post('/chat/ticket', undefined, token);
    expect(t.status).toBe(200);
    return openSocket<{ message: { id: string; text: string } }>(`${wsBase()}/api/chat/socket?ticket=${t.body.data.ticket}`);
  };
  const reply = (userId: string, text: string) => kit.api.post(`/admin/chat/conversations/${userId}/messages`, { text }, kit.admin);

  it("an admin deletes a member's message: gone for both sides; another conversation's message is a 404, members are refused", async () => {
    const m = await subscribed();
    const other = await subscribed();
    const sent = (await kit.api.post('/chat/messages', { text: 'please delete me' }, m.token)).body.data.message;
    const theirs = (await kit.api.post('/chat/messages', { text: 'not yours' }, other.token)).body.data.message;
    expect((await kit.api.del(`/admin/chat/conversations/${m.id}/messages/${sent.id}`, m.token)).status).toBe(403);
    expect((await kit.api.del(`/admin/chat/conversations/${m.id}/messages/${theirs.id}`, kit.admin)).status).toBe(404);
    const deleted = await kit.api.del(`/admin/chat/conversations/${m.id}/messages/${sent.id}`, kit.admin);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ deleted: true });
    expect((await kit.api.get('/chat/messages', m.token)).body.data.messages).toEqual([]);
    expect((await kit.api.get(`/admin/chat/conversations/${m.id}/messages`, kit.admin)).body.data.messages).toEqual([]);
    expect((await kit.api.del(`/admin/chat/conversations/${m.id}/messages/${sent.id}`, kit.admin)).status).toBe(404);
    const events = await server.ctx.store.readStream(`chat-${m.id}`);
    expect(events.map((e) => e.type)).toEqual(['ChatMessageSent', 'ChatMessageDeleted']);
  });

  it('closes an open socket whose session was logged out, instead of pushing it the next message', async () => {
    const m = await subscribed();
    const socket = await socketOf(m.token);
    const first = (await reply(m.id, 'before logout')).body.data.message;
    await within(
      (async () => {
        while (socket.received.length < 1) await new Promise((r) => setTimeout(r, 50));
      })(),
      5000,
    );
    expect(socket.received[0]?.message.id).toBe(first.id);
    const loggedOut = await kit.api.call('POST', '/auth/logout', {
      headers: { cookie: cookieHeader(m.cookies), 'x-csrf-token': m.cookies.csrf_token as string },
    });
    expect(loggedOut.status).toBe(200);
    await reply(m.id, 'after logout');
    expect(await within(socket.closed, 5000)).toBe(SESSION_ENDED_CLOSE);
    expect(socket.received.map((p) => p.message.text)).toEqual(['before logout']);
  });

  it('closes an open socket of a member an admin suspends', async () => {
    const m = await subscribed();
    const socket = await socketOf(m.token);
    const suspended = await kit.api.post(`/admin/users/${m.id}/suspend`, { reason: 'Abuse of the chat' }, kit.admin);
    expect(suspended.status).toBe(200);
    await reply(m.id, 'after suspension');
    expect(await within(socket.closed, 5000)).toBe(SESSION_ENDED_CLOSE);
    expect(socket.received).toEqual([]);
  });
});
