/**
 * The chat WebSocket as an attacker would try it (issue 44, findings 2 and 3), on the production
 * configuration over real HTTP and real WebSockets, per store:
 *  - a handshake whose `Origin` is another site's, or that names none (a ticket replayed from a log
 *    by curl), gets no upgrade (403) and does not spend the ticket; the site's own origin and the
 *    desktop console's (`app://renderer`, which its main process names) open it;
 *  - a ticket taken before its holder was suspended, erased or signed out opens nothing (401);
 *  - suspension, erasure and sign-out close that account's open socket at once (code 4401), with
 *    no message pushed to trigger it and long before the 30-second sweep; on PostgreSQL the socket
 *    is held by a second API process on the same database, so the notice crosses processes.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { openSocket, within } from '../../test/sockets.js';
import { billingTestKit, HASH } from '../billing/billing.testkit.js';
import { approvedMember, cookieHeader } from '../identity/identity.testkit.js';
import { SESSION_ENDED_CLOSE, SOCKET_SESSION_RECHECK_MS } from './socket.routes.js';

const PUBLIC_URL = 'https://members.example.test';
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_URL, REQUIRE_ADMIN_2FA: 'false', AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' };
/** Well under the sweep: a close within this came from the notice, not the periodic recheck. */
const AT_ONCE_MS = 3000;
let hashes = 44_100;

/** The status a raw WebSocket handshake gets (101: upgraded), with the headers an attacker chooses. */
function handshake(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

forEachStore('chat socket: origin and the holder’s standing', (kind) => {
  let server: TestServer;
  /** Where sockets are opened: a second process on the same PostgreSQL database; the same server on SQLite. */
  let holderServer: Pick<TestServer, 'url'> & { stop?: () => Promise<void> };
  let kit: Awaited<ReturnType<typeof billingTestKit>>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: PRODUCTION });
    kit = await billingTestKit(server);
    if (kind === 'postgres') {
      const second = await startTestServer(kind, { env: PRODUCTION, store: server.store });
      holderServer = { url: second.url, stop: () => second.stop() };
    } else holderServer = server;
  });
  afterAll(async () => {
    await holderServer?.stop?.();
    await server?.close();
  });

  async function subscribed() {
    const m = await approvedMember(kit.api);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }
  const ticketOf = async (token: string): Promise<string> => {
    const t = await kit.api.post('/chat/ticket', undefined, token);
    expect(t.status).toBe(200);
    return t.body.data.ticket;
  };
  const socketUrl = (base: string, ticket: string) => `${base.replace(/^http/, 'ws')}/api/chat/socket?ticket=${ticket}`;
  const httpUrl = (ticket: string) => `${holderServer.url}/api/chat/socket?ticket=${ticket}`;

  it("a foreign Origin, or none, gets no upgrade and does not spend the ticket; the site's own origin and the desktop console's open it", async () => {
    const m = await subscribed();
    const ticket = await ticketOf(m.token);
    for (const origin of [
      'https://evil.example',
      'null',
      'https://members.example.test.evil.example',
      'http://members.example.test',
      'app://evil',
    ]) {
      expect(await handshake(httpUrl(ticket), { origin })).toBe(403);
    }
    // No Origin: not a browser, and not the console's documented form (a ticket lifted from a log, replayed by curl).
    expect(await handshake(httpUrl(ticket), {})).toBe(403);
    expect(await handshake(httpUrl(ticket), { origin: PUBLIC_URL })).toBe(101);
    // Spent by the one upgrade.
    expect(await handshake(httpUrl(ticket), { origin: PUBLIC_URL })).toBe(401);
    expect(await handshake(httpUrl(await ticketOf(m.token)), { origin: 'app://renderer' })).toBe(101);
  });

  it('a ticket taken before its holder was suspended opens nothing', async () => {
    const m = await subscribed();
    const ticket = await ticketOf(m.token);
    expect((await kit.api.post(`/admin/users/${m.id}/suspend`, { reason: 'Abuse of the chat' }, kit.admin)).status).toBe(200);
    expect(await handshake(httpUrl(ticket), { origin: PUBLIC_URL })).toBe(401);
  });

  it('a ticket taken before its holder was erased opens nothing', async () => {
    const m = await subscribed();
    const ticket = await ticketOf(m.token);
    expect((await kit.api.post(`/admin/users/${m.id}/erase`, { reason: 'request #44' }, kit.admin)).status).toBe(200);
    expect(await handshake(httpUrl(ticket), { origin: PUBLIC_URL })).toBe(401);
  });

  it('a ticket taken before its session was signed out opens nothing', async () => {
    const m = await approvedMember(kit.api);
    const ticket = await ticketOf(m.token);
    const out = await kit.api.call('POST', '/auth/logout', {
      headers: { cookie: cookieHeader(m.cookies), 'x-csrf-token': m.cookies.csrf_token as string },
    });
    expect(out.status).toBe(200);
    expect(await handshake(httpUrl(ticket), { origin: PUBLIC_URL })).toBe(401);
  });

  it('suspension, erasure and sign-out close the open socket at once, with nothing pushed', async () => {
    expect(AT_ONCE_MS).toBeLessThan(SOCKET_SESSION_RECHECK_MS / 5);
    const suspended = await subscribed();
    const erased = await subscribed();
    const signedOut = await subscribed();
    const sockets = {
      suspended: await openSocket(socketUrl(holderServer.url, await ticketOf(suspended.token)), PUBLIC_URL),
      erased: await openSocket(socketUrl(holderServer.url, await ticketOf(erased.token)), PUBLIC_URL),
      signedOut: await openSocket(socketUrl(holderServer.url, await ticketOf(signedOut.token)), PUBLIC_URL),
    };
    expect((await kit.api.post(`/admin/users/${suspended.id}/suspend`, { reason: 'Abuse of the chat' }, kit.admin)).status).toBe(200);
    expect(await within(sockets.suspended.closed, AT_ONCE_MS)).toBe(SESSION_ENDED_CLOSE);
    expect((await kit.api.post(`/admin/users/${erased.id}/erase`, { reason: 'request #44' }, kit.admin)).status).toBe(200);
    expect(await within(sockets.erased.closed, AT_ONCE_MS)).toBe(SESSION_ENDED_CLOSE);
    const out = await kit.api.call('POST', '/auth/logout', {
      headers: { cookie: cookieHeader(signedOut.cookies), 'x-csrf-token': signedOut.cookies.csrf_token as string },
    });
    expect(out.status).toBe(200);
    expect(await within(sockets.signedOut.closed, AT_ONCE_MS)).toBe(SESSION_ENDED_CLOSE);
    for (const s of Object.values(sockets)) expect(s.received).toEqual([]);
  });
});
