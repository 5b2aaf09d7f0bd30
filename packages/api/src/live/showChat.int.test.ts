/**
 * A live show's chat room (issue 43 item 4) over real HTTP and real WebSockets, on both stores and
 * on the production configuration (NODE_ENV=production): a member who may watch posts and a second
 * member's socket receives it; a member without the plan is refused (403 with the videos' code) and
 * their socket is never opened; staff (support) delete a message (every socket is told) and mute a
 * member (refused from then on) and unmute them (accepted again; the mute and unmute reach that
 * member's socket only); the rate limit; an anonymous caller; a ticket used on another
 * show's room; support's answers carry display names only; a socket whose holder is suspended or
 * erased closes at once; an erasure leaves none of the member's text in the store's bytes. As an
 * attacker (issue 44): a handshake from another site's `Origin`, or naming none, gets no upgrade
 * and leaves the ticket unspent, and a ticket taken before its holder was suspended or erased
 * opens nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { handshake as socketHandshake, openSocket as testSocket } from '../../test/sockets.js';
import { storeBytes } from '../../test/storeBytes.js';
import { SESSION_ENDED_CLOSE, SOCKET_SESSION_RECHECK_MS } from '../chat/index.js';
import { enrolSecondFactor, login } from '../identity/identity.testkit.js';
import { type StaffAccount, signedInStaff } from '../identity/staff.testkit.js';
import { totpCode } from '../identity/totp.js';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit.js';
import { SHOW_CHAT_MUTED } from './showChat.decider.js';
import { SHOW_CHAT_RATE_LIMIT, SHOW_CHAT_RATE_LIMITED } from './showChat.routes.js';
import { endShow, scheduleShow, startShow } from './shows.service.js';

const LADDER = [{ name: '240p', width: 426, height: 240, bandwidth: 500_000 }];

interface Push {
  type: 'message' | 'deleted';
  message?: { id: string; showId: string; authorId: string; author: string; text: string; postedAt: string };
  messageId?: string;
}

/** The site's address (PUBLIC_URL): its pages' `Origin`, which the room's socket requires. */
const SITE = 'https://members.example';

/** A handshake naming `origin` (the site's by default; null: none). */
const handshake = (url: string, origin: string | null = SITE) => socketHandshake(url, origin);
/** An open room socket, named as the site's pages name it. */
const openSocket = (url: string) => testSocket<Push>(url, SITE);

forEachStore('live show chat room (production)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let owner: { id: string; token: string };
  let support: StaffAccount;
  let showId: string;
  let vipShowId: string;
  let alice: TestViewer;
  let bob: TestViewer;
  const wsBase = () => server.url.replace(/^http/, 'ws');
  const ticketOf = async (token: string) => {
    const t = await api.post('/chat/ticket', undefined, token);
    expect(t.status).toBe(200);
    return t.body.data.ticket as string;
  };
  const socketOf = async (token: string, show = showId) =>
    openSocket(`${wsBase()}/api/live/shows/${show}/chat/socket?ticket=${encodeURIComponent(await ticketOf(token))}`);
  const post = (token: string | undefined, text: string, show = showId) =>
    api.call('POST', `/live/shows/${show}/chat`, { body: { text }, token });

  async function liveShow(accessLevel: 'premium' | 'vip'): Promise<string> {
    // The VIP show: exclusive to the annual plan, which a monthly member may not watch.
    const exclusiveTo = accessLevel === 'vip' ? 'annual' : null;
    const s = await scheduleShow(
      server.ctx,
      { title: `Chat ${accessLevel}`, accessLevel, exclusiveTo, startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      { actorId: owner.id },
    );
    if (!s.ok) throw new Error(s.error.message);
    expect((await startShow(server.ctx, s.value.show.id, s.value.streamKey, LADDER)).ok).toBe(true);
    return s.value.show.id;
  }
  async function monthlyMember(lastName = 'Viewer'): Promise<TestViewer> {
    const m = await createTestUser(server.ctx);
    if (lastName !== 'Viewer') await server.ctx.db.run('UPDATE users SET last_name = ? WHERE id = ?', [lastName, m.id]);
    await grantPlanForTest(server.ctx, m.id, 'monthly');
    return m;
  }

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL: SITE, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
    });
    api = apiClient(server.url);
    const first = await login(api, TEST_ADMIN.email, TEST_ADMIN.password);
    const { secret } = await enrolSecondFactor(api, server.clock, first.token);
    server.clock.advance(30_000);
    const challenge = await api.post('/auth/login', TEST_ADMIN);
    const verified = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(secret, server.clock.now()),
    });
    expect(verified.status).toBe(200);
    owner = { id: verified.body.data.user.id, token: verified.body.data.token };
    support = await signedInStaff(server, api, owner.token, 'support');
    showId = await liveShow('premium');
    vipShowId = await liveShow('vip');
    alice = await monthlyMember('Anderson');
    bob = await monthlyMember();
  });
  afterAll(async () => server?.close());

  it("delivers a member's message to a second member's socket, and lists it for both", async () => {
    const bobs = await socketOf(bob.token);
    const alices = await socketOf(alice.token);
    const sent = await post(alice.token, '  Hello from the front row  ');
    expect(sent.status).toBe(201);
    const message = sent.body.data.message;
    expect(message).toMatchObject({ showId, authorId: alice.id, author: 'Test A.', text: 'Hello from the front row' });
    const [pushed] = await bobs.next(1);
    expect(pushed).toEqual({ type: 'message', message });
    expect((await alices.next(1))[0]).toEqual({ type: 'message', message });
    const listed = await api.get(`/live/shows/${showId}/chat`, bob.token);
    expect(listed.status).toBe(200);
    expect(listed.body.data.messages.map((m: { id: string }) => m.id)).toContain(message.id);
    // A socket resuming with `after` gets what came after first.
    const later = await post(bob.token, 'Second');
    expect(later.status).toBe(201);
    const resumed = await openSocket(
      `${wsBase()}/api/live/shows/${showId}/chat/socket?ticket=${encodeURIComponent(await ticketOf(alice.token))}&after=${message.id}`,
    );
    expect((await resumed.next(1))[0]).toMatchObject({ type: 'message', message: { id: later.body.data.message.id, text: 'Second' } });
    for (const s of [bobs, alices, resumed]) s.close();
  });

  it('refuses a member without the plan (403 with the code) and never opens their socket; refuses an anonymous caller (401)', async () => {
    const noPlan = await createTestUser(server.ctx);
    const refused = await post(noPlan.token, 'let me in');
    expect(refused).toMatchObject({ status: 403, body: { success: false, code: 'access.subscription_required' } });
    expect(await api.get(`/live/shows/${showId}/chat`, noPlan.token)).toMatchObject({ status: 403 });
    const ticket = await ticketOf(noPlan.token);
    const handshaken = await handshake(`${wsBase()}/api/live/shows/${showId}/chat/socket?ticket=${encodeURIComponent(ticket)}`);
    // Refused before the upgrade (the `ws` client reads no body from a refused handshake, as in chat.int.test.ts).
    expect(handshaken.status).toBe(403);
    // Spent: the ticket opens nothing afterwards either.
    expect((await handshake(`${wsBase()}/api/live/shows/${showId}/chat/socket?ticket=${encodeURIComponent(ticket)}`)).status).toBe(401);
    expect(await post(undefined, 'anonymous')).toMatchObject({ status: 401, body: { success: false, code: 'access.not_logged_in' } });
    expect(await api.get(`/live/shows/${showId}/chat`)).toMatchObject({ status: 401 });
    const plain = await api.get(`/live/shows/${showId}/chat/socket?ticket=${await ticketOf(alice.token)}`);
    expect(plain.status).toBe(426);
  });

  it("does not let a ticket read another show's room: a monthly member's ticket on the VIP show is refused and gets none of its messages", async () => {
    const vip = await createTestUser(server.ctx);
    await grantPlanForTest(server.ctx, vip.id, 'annual');
    const watching = await socketOf(alice.token);
    const refused = await handshake(
      `${wsBase()}/api/live/shows/${vipShowId}/chat/socket?ticket=${encodeURIComponent(await ticketOf(alice.token))}`,
    );
    expect(refused.status).toBe(403);
    expect(await post(vip.token, 'VIP only words', vipShowId)).toMatchObject({ status: 201 });
    expect(await api.get(`/live/shows/${vipShowId}/chat`, alice.token)).toMatchObject({ status: 403 });
    // Alice's socket on the premium show hears its own room only.
    const marker = await post(bob.token, 'premium marker');
    expect(marker.status).toBe(201);
    const got = await watching.next(1);
    expect(got.map((p) => p.message?.text)).toEqual(['premium marker']);
    watching.close();
  });

  it('lets support delete a message (every socket is told) and mute a member; answers carry display names, never an e-mail address', async () => {
    const carol = await monthlyMember('Carter');
    const bobs = await socketOf(bob.token);
    const sent = await post(carol.token, 'something rude');
    expect(sent.status).toBe(201);
    const id = sent.body.data.message.id as string;
    await bobs.next(1);
    // Support reads the room: names only.
    const asSupport = await api.get(`/live/shows/${showId}/chat`, support.token);
    expect(asSupport.status).toBe(200);
    const raw = JSON.stringify(asSupport.body);
    for (const m of [alice, bob, carol]) expect(raw).not.toContain(m.email);
    expect(raw).not.toContain('1990-01-01');
    expect(raw).not.toContain('@');
    // A member may not moderate.
    expect((await api.call('DELETE', `/admin/live/shows/${showId}/chat/${id}`, { token: bob.token })).status).toBe(403);
    const deleted = await api.call('DELETE', `/admin/live/shows/${showId}/chat/${id}`, { token: support.token });
    expect(deleted).toMatchObject({ status: 200, body: { success: true, data: { deleted: true } } });
    expect((await bobs.next(2))[1]).toEqual({ type: 'deleted', showId, messageId: id });
    const listed = await api.get(`/live/shows/${showId}/chat`, bob.token);
    expect(listed.body.data.messages.map((m: { id: string }) => m.id)).not.toContain(id);
    // The id of a message of this room on another show's path is unknown there.
    expect((await api.call('DELETE', `/admin/live/shows/${vipShowId}/chat/${id}`, { token: support.token })).status).toBe(404);
    const muted = await api.post(`/admin/live/shows/${showId}/chat/mutes`, { userId: carol.id }, support.token);
    expect(muted).toMatchObject({ status: 200, body: { data: { muted: true, userId: carol.id } } });
    expect(JSON.stringify(muted.body)).not.toContain('@');
    expect(await post(carol.token, 'again')).toMatchObject({
      status: 403,
      body: { success: false, code: 'live.chat_muted', error: SHOW_CHAT_MUTED },
    });
    // For this show only.
    expect((await post(carol.token, 'fine here', vipShowId)).status).toBe(403); // monthly: the VIP show's decision refuses
    expect((await api.post(`/admin/live/shows/${showId}/chat/mutes`, { userId: server.ctx.ids.next() }, support.token)).status).toBe(404);
    bobs.close();
  });

  it('lets support unmute a member: muted → post refused (403) → unmuted → post accepted (201); only that member is told, the read says so', async () => {
    const fay = await monthlyMember('Fischer');
    const fays = await socketOf(fay.token);
    const bobs = await socketOf(bob.token);
    expect((await api.get(`/live/shows/${showId}/chat`, fay.token)).body.data.muted).toBe(false);
    expect((await api.post(`/admin/live/shows/${showId}/chat/mutes`, { userId: fay.id }, support.token)).status).toBe(200);
    expect((await fays.next(1))[0]).toEqual({ type: 'muted', showId, userId: fay.id });
    expect((await api.get(`/live/shows/${showId}/chat`, fay.token)).body.data.muted).toBe(true);
    // Staff's read lists who is muted (their Unmute); a member's never does.
    expect((await api.get(`/live/shows/${showId}/chat`, support.token)).body.data.mutedMembers).toContain(fay.id);
    expect((await api.get(`/live/shows/${showId}/chat`, bob.token)).body.data).not.toHaveProperty('mutedMembers');
    expect(await post(fay.token, 'muted words')).toMatchObject({ status: 403, body: { success: false, code: 'live.chat_muted' } });

    // A member may not unmute (themselves or anyone).
    expect((await api.call('DELETE', `/admin/live/shows/${showId}/chat/mutes/${fay.id}`, { token: fay.token })).status).toBe(403);
    const unmuted = await api.call('DELETE', `/admin/live/shows/${showId}/chat/mutes/${fay.id}`, { token: support.token });
    expect(unmuted).toMatchObject({ status: 200, body: { success: true, data: { muted: false, userId: fay.id } } });
    expect((await fays.next(2))[1]).toEqual({ type: 'unmuted', showId, userId: fay.id });
    expect((await api.get(`/live/shows/${showId}/chat`, fay.token)).body.data.muted).toBe(false);
    expect((await api.get(`/live/shows/${showId}/chat`, support.token)).body.data.mutedMembers).not.toContain(fay.id);
    const back = await post(fay.token, 'back again');
    expect(back.status).toBe(201);
    // The room heard her message, never who was muted.
    const heard = await bobs.next(1);
    expect(heard).toEqual([{ type: 'message', message: back.body.data.message }]);
    // Unmuting twice changes nothing; an unknown member or show is a 404.
    expect((await api.call('DELETE', `/admin/live/shows/${showId}/chat/mutes/${fay.id}`, { token: support.token })).status).toBe(200);
    const events = await server.ctx.rawStore.readStream(`live-chat-${showId}`);
    expect(events.filter((e) => e.type === 'ShowChatMemberUnmuted' && (e.data as { userId: string }).userId === fay.id)).toHaveLength(1);
    expect(
      (await api.call('DELETE', `/admin/live/shows/${showId}/chat/mutes/${server.ctx.ids.next()}`, { token: support.token })).status,
    ).toBe(404);
    expect(
      (await api.call('DELETE', `/admin/live/shows/${server.ctx.ids.next()}/chat/mutes/${fay.id}`, { token: support.token })).status,
    ).toBe(404);
    fays.close();
    bobs.close();
  });

  it('limits a member to the rate a minute (429), refuses empty and control text (400), and closes the room when the show ends (409)', async () => {
    const dan = await monthlyMember();
    expect((await post(dan.token, '   ')).status).toBe(400);
    expect((await post(dan.token, 'bad \u202e text')).status).toBe(400);
    for (let i = 0; i < SHOW_CHAT_RATE_LIMIT; i++) expect((await post(dan.token, `message ${i}`)).status).toBe(201);
    const limited = await post(dan.token, 'one more');
    expect(limited).toMatchObject({ status: 429, body: { success: false, code: 'rate_limited', error: SHOW_CHAT_RATE_LIMITED } });
    server.clock.advance(61_000);
    expect((await post(dan.token, 'after a minute')).status).toBe(201);
    const ended = await liveShow('premium');
    expect((await endShow(server.ctx, ended, 'admin', { actorId: owner.id })).ok).toBe(true);
    expect(await post(dan.token, 'too late', ended)).toMatchObject({ status: 409, body: { code: 'live.chat_closed' } });
  });

  it('refuses the outside tester’s payloads (issue 44) with a 400 envelope and records nothing; a zero-width space is stripped', async () => {
    const erin = await monthlyMember();
    const head = await server.ctx.store.headPosition();
    for (const [text, error] of [
      ['hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes', 'text: must not contain control characters'],
      ['abc\u202egnp.exe\u202c', 'text: must not contain text direction override characters'],
      ['Team\u2067 · VIP\u2069', 'text: must not contain text direction override characters'],
      ['\u200b\u200b\u200b', 'text: Message cannot be empty'],
    ]) {
      const r = await post(erin.token, text as string);
      const { success, error: said, code } = r.body as { success: boolean; error: string; code: string };
      expect([JSON.stringify(text), r.status, { success, error: said, code }]).toEqual([
        JSON.stringify(text),
        400,
        { success: false, error, code: 'validation.invalid_body' },
      ]);
    }
    expect(await server.ctx.store.headPosition()).toBe(head);
    const ok = await post(erin.token, 'Hello\r\nfrom \u200berin');
    expect(ok.status).toBe(201);
    expect(ok.body.data.message.text).toBe('Hello\nfrom erin');
  });

  it("refuses a handshake from another site's Origin, or naming none (403), before the ticket is spent; the site's own origin opens the room", async () => {
    const gina = await monthlyMember();
    const url = `${wsBase()}/api/live/shows/${showId}/chat/socket?ticket=${encodeURIComponent(await ticketOf(gina.token))}`;
    for (const origin of ['https://evil.example', 'null', 'https://members.example.evil.example', 'http://members.example', null]) {
      expect({ origin, status: (await handshake(url, origin)).status }).toEqual({ origin, status: 403 });
    }
    expect((await handshake(url)).status).toBe(101);
    expect((await handshake(url)).status).toBe(401);
  });

  it('opens nothing with a ticket taken before its holder was suspended, or erased (401, spent)', async () => {
    for (const action of ['suspend', 'erase'] as const) {
      const m = await monthlyMember();
      const url = `${wsBase()}/api/live/shows/${showId}/chat/socket?ticket=${encodeURIComponent(await ticketOf(m.token))}`;
      expect((await api.post(`/admin/users/${m.id}/${action}`, { reason: 'Abuse of the live chat' }, owner.token)).status).toBe(200);
      expect({ action, status: (await handshake(url)).status }).toEqual({ action, status: 401 });
    }
  });

  it('closes the socket of a member suspended, or erased, meanwhile (4401) at once, not at the next sweep', async () => {
    for (const action of ['suspend', 'erase'] as const) {
      const frank = await monthlyMember();
      const socket = await socketOf(frank.token);
      const opened = Date.now();
      expect((await api.post(`/admin/users/${frank.id}/${action}`, { reason: 'Abuse of the live chat' }, owner.token)).status).toBe(200);
      expect({ action, code: await socket.closed }).toEqual({ action, code: SESSION_ENDED_CLOSE });
      // Closed by identity's notice, not by the sweep (its first run is a whole interval after the open).
      expect(Date.now() - opened).toBeLessThan(SOCKET_SESSION_RECHECK_MS);
    }
  });

  it("seals a member's text in the log and an erasure leaves none of it in the store's bytes", async () => {
    const erin = await monthlyMember();
    const secret = `show-chat-secret-${Date.now().toString(36)}`;
    expect((await post(erin.token, secret)).status).toBe(201);
    const stored = await server.ctx.rawStore.readStream(`live-chat-${showId}`);
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain(secret);
    expect((await api.post(`/admin/users/${erin.id}/erase`, { reason: 'verified request' }, owner.token)).status).toBe(200);
    expect(storeBytes(server.store).includes(secret)).toBe(false);
    const rows = await server.ctx.db.all<{ text: string }>('SELECT text FROM live_chat_messages WHERE user_id = ?', [erin.id]);
    expect(rows).toEqual([{ text: '' }]);
    const listed = await api.get(`/live/shows/${showId}/chat`, bob.token);
    expect(listed.body.data.messages.find((m: { authorId: string }) => m.authorId === erin.id)).toMatchObject({
      author: 'erased member',
      text: '',
    });
  });
});
