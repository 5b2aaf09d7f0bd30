/**
 * The desktop console's chat feed (main/chatLive.ts), the module Electron's main process runs,
 * against a real API server on both stores, with the admin's real desktop session (session.ts) and
 * real WebSockets: a member's message arrives (how fast is bench/chat.ts's figure, not this test's:
 * a test waits for the message, bounded only to catch a hang); a feed stopped (killed) and started again,
 * and a feed whose connection drops (a loopback proxy cut), both get the message sent while they
 * were down (the socket resumes with `after=`); the notifier records one notification for a
 * member's message ("VIP · …" for an annual member) and none for the team's own reply or while the
 * window has the focus; a session revoked from elsewhere ends the feed (4401) with a clear state and
 * no reconnect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approvedMember, billingTestKit, forEachStore, HASH } from '../../../api/test/support.js';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/fixtures.js';
import { startLoopbackProxy } from '../../test/loopbackProxy.js';
import {
  CHAT_SESSION_ENDED,
  type ChatLive,
  type ChatLiveState,
  type ChatNotification,
  createChatLive,
  type LiveChatMessage,
} from './chatLive.js';
import { fileConfigStore, memorySecretStore } from './configStore.js';
import { createSession } from './session.js';

const dir = tmpDir('desktop-chat-live-');
let hashes = 9700;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Waits for `check`; the bound only catches a hang (a busy 2-core machine may take seconds). */
async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

forEachStore('desktop chat feed in the main process', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  const feeds: ChatLive[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
    kit = await billingTestKit(server);
  });
  afterAll(async () => {
    for (const f of feeds) f.stop();
    await server?.close();
  });

  async function subscribed(planType: 'monthly' | 'annual', firstName: string) {
    const m = await approvedMember(kit.api, { firstName, lastName: 'Member' });
    const paid = await kit.submit(m, {
      planType,
      btcAmount: planType === 'annual' ? '0.005' : '0.0005',
      transactionHash: HASH(hashes++),
    });
    expect(paid.status).toBe(201);
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
    return m;
  }
  const say = async (m: { token: string }, text: string) => {
    const res = await kit.api.post('/chat/messages', { text }, m.token);
    expect(res.status).toBe(201);
    return res.body.data.message as { id: string; text: string };
  };

  /** The admin signed in on the desktop (the main process's session), and a feed over it. */
  async function desktopFeed(serverUrl = server.url) {
    const secrets = memorySecretStore();
    const session = createSession({ config: fileConfigStore(fs.mkdtempSync(path.join(dir, 'config-'))), secrets });
    const signedIn = await session.signIn(serverUrl, TEST_ADMIN.email, TEST_ADMIN.password);
    expect(signedIn.ok).toBe(true);
    const notifications: ChatNotification[] = [];
    const received: LiveChatMessage[] = [];
    const states: (ChatLiveState & { at: number })[] = [];
    let focused = false;
    const feed = createChatLive({
      session,
      notifier: { notify: (n) => notifications.push(n) },
      isFocused: () => focused,
      backoff: { firstMs: 100, maxMs: 1000 },
    });
    feeds.push(feed);
    feed.onMessage((m) => received.push(m));
    feed.onState((s) => states.push({ ...s, at: Date.now() }));
    return {
      feed,
      session,
      secrets,
      notifications,
      received,
      states,
      focus(on: boolean) {
        focused = on;
      },
      texts: () => received.map((m) => m.text),
      async live() {
        await until('the feed to be live', () => feed.state().status === 'live');
      },
    };
  }

  it("a member's message arrives and notifies once, VIP first; the team's reply and a focused window do not notify", async () => {
    const vip = await subscribed('annual', 'Vera');
    const monthly = await subscribed('monthly', 'Mona');
    const d = await desktopFeed();
    d.feed.start();
    await d.live();

    const question = await say(vip, 'Hello from a VIP');
    await until('the VIP message', () => d.received.some((m) => m.id === question.id));
    expect(d.received.find((m) => m.id === question.id)).toMatchObject({ from: 'member', userId: vip.id, text: 'Hello from a VIP' });
    await until('the notification', () => d.notifications.length === 1);
    expect(d.notifications[0]).toEqual({ title: 'VIP · Vera Member', body: 'Hello from a VIP', userId: vip.id });

    // The team's reply (through the same session, as the inbox sends it) comes through the feed, silently.
    const reply = await d.session.request('POST', `/admin/chat/conversations/${vip.id}/messages`, { text: 'Hi Vera' });
    expect(reply.status).toBe(201);
    await until('the reply', () => d.texts().includes('Hi Vera'));
    expect(d.received.at(-1)?.from).toBe('admin');

    // A monthly member: no VIP in the title.
    await say(monthly, 'Hello from Mona');
    await until('the second notification', () => d.notifications.length === 2);
    expect(d.notifications[1]).toEqual({ title: 'Mona Member', body: 'Hello from Mona', userId: monthly.id });

    // The window has the focus: the message arrives, no notification. Notifications go out one
    // after the other in the messages' order, so once the next message (the window unfocused again)
    // has notified, the focused one's turn is over.
    d.focus(true);
    await say(vip, 'While you are looking');
    await until('the focused message', () => d.texts().includes('While you are looking'));
    d.focus(false);
    await say(monthly, 'After you looked away');
    await until('the next notification', () => d.notifications.length >= 3);
    expect(d.notifications.map((n) => n.body)).toEqual(['Hello from a VIP', 'Hello from Mona', 'After you looked away']);
    expect(d.texts()).toEqual(['Hello from a VIP', 'Hi Vera', 'Hello from Mona', 'While you are looking', 'After you looked away']);
  });

  it('a feed stopped (killed) and started again gets the messages sent while it was down, once each', async () => {
    const m = await subscribed('monthly', 'Kim');
    const d = await desktopFeed();
    d.feed.start();
    await d.live();
    await say(m, 'before the kill');
    await until('the first message', () => d.texts().includes('before the kill'));

    d.feed.stop();
    expect(d.feed.state().status).toBe('stopped');
    await say(m, 'while down 1');
    await say(m, 'while down 2');
    d.feed.start();
    await until('the missed messages', () => d.texts().includes('while down 2'));
    await say(m, 'after the restart');
    await until('the next message', () => d.texts().includes('after the restart'));
    expect(d.texts()).toEqual(['before the kill', 'while down 1', 'while down 2', 'after the restart']);
    await until('four notifications', () => d.notifications.length === 4);
    expect(d.notifications.map((n) => n.body)).toEqual(['before the kill', 'while down 1', 'while down 2', 'after the restart']);
  });

  it('a dropped connection reconnects with back-off and resumes after the last message it saw', async () => {
    const m = await subscribed('annual', 'Dora');
    const proxy = await startLoopbackProxy(new URL(server.url));
    try {
      const d = await desktopFeed(proxy.url);
      d.feed.start();
      await d.live();
      await say(m, 'before the cut');
      await until('the first message', () => d.texts().includes('before the cut'));

      proxy.cut();
      await until('the feed to notice', () => d.feed.state().status === 'reconnecting');
      // Sent straight to the server while the desktop cannot reach it.
      const missed = await say(m, 'sent while the network was down');
      const sentAt = Date.now();
      // The feed tried again after the message was stored, and could not get through: two failed
      // attempts recorded from now on, so the second began after the message was in the store.
      const from = d.states.length;
      const failedSince = () => d.states.slice(from).filter((s) => s.status === 'reconnecting').length;
      await until('a whole failed reconnect after the message', () => failedSince() >= 2);
      expect(d.texts()).not.toContain(missed.text);
      proxy.restore();
      await until('the missed message', () => d.texts().includes(missed.text));
      // It came with the resumed socket's backlog: the socket that brought it opened after it was sent.
      const reopened = d.states.find((s) => s.status === 'live' && s.at > sentAt);
      expect(reopened).toBeDefined();
      await say(m, 'after the reconnect');
      await until('the live message', () => d.texts().includes('after the reconnect'));
      expect(d.texts()).toEqual(['before the cut', missed.text, 'after the reconnect']);
    } finally {
      await proxy.close();
    }
  });

  it('a session revoked elsewhere ends the feed (4401) with a clear state, and it does not reconnect', async () => {
    const m = await subscribed('monthly', 'Rex');
    const d = await desktopFeed();
    d.feed.start();
    await d.live();
    await say(m, 'before the revocation');
    await until('the first message', () => d.texts().includes('before the revocation'));

    // The admin ends their other sessions from the web (settings, the password asked again): the desktop's is one of them.
    const web = await apiClient(server.url).post('/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password });
    expect(web.status).toBe(200);
    const revoked = await kit.api.call('DELETE', '/users/me/sessions', {
      token: web.body.data.token,
      body: { password: TEST_ADMIN.password },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked).toBeGreaterThanOrEqual(1);

    await say(m, 'after the revocation');
    await until('the feed to end', () => d.feed.state().status === 'ended');
    expect(d.feed.state()).toMatchObject({ status: 'ended', error: CHAT_SESSION_ENDED });
    // A feed signed in afresh gets a message sent after the end: had the ended feed come back (its
    // back-off starts at 100 ms), it would have it too by then.
    const control = await desktopFeed();
    control.feed.start();
    await control.live();
    await say(m, 'after the end');
    await until('the message on a live feed', () => control.texts().includes('after the end'));
    expect(d.feed.state().status).toBe('ended');
    expect(d.states.filter((s) => s.status === 'connecting' || s.status === 'reconnecting').map((s) => s.status)).toEqual(['connecting']);
    expect(d.texts()).toEqual(['before the revocation']);
    // Starting again (a new sign-in would) asks for a ticket, which the ended session cannot get.
    d.feed.start();
    await until('the second end', () => d.feed.state().status === 'ended');
    expect(d.feed.state().error).toBe(CHAT_SESSION_ENDED);
  });
});
