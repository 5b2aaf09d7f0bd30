/**
 * The desktop console's relay of a live show's chat room (main/chatLive.ts, `createShowChatLive`),
 * the module Electron's main process runs, against a real API server on both stores, with the
 * admin's real desktop session (session.ts) and real WebSockets, as chatLive.int.test.ts tests the
 * 1:1 chat's feed: a member's message in the show's room reaches the relay; a deletion from the
 * console (through the same session, as the renderer's client sends it) reaches it too, and the
 * room's next read leaves the message out; a mute from the console makes the member's next message
 * a 403 `live.chat_muted`; following another show leaves the first room.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approvedMember, forEachStore } from '../../../api/test/support.js';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/fixtures.js';
import { createShowChatLive, type ShowChatLive } from './chatLive.js';
import { fileConfigStore, memorySecretStore } from './configStore.js';
import { createSession } from './session.js';

const dir = tmpDir('desktop-show-chat-live-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Push =
  | { type: 'message'; message: { id: string; showId: string; text: string; authorId: string } }
  | { type: 'deleted'; showId: string; messageId: string };

/** Waits for `check`; the bound only catches a hang (a busy 2-core machine may take seconds). */
async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

forEachStore('desktop show chat relay in the main process', (kind) => {
  let server: TestServer;
  const relays: ShowChatLive[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    for (const r of relays) r.stop();
    await server?.close();
  });

  /** The admin signed in on the desktop (the main process's session), and a relay over it. */
  async function desktopRelay() {
    const session = createSession({ config: fileConfigStore(fs.mkdtempSync(path.join(dir, 'config-'))), secrets: memorySecretStore() });
    expect((await session.signIn(server.url, TEST_ADMIN.email, TEST_ADMIN.password)).ok).toBe(true);
    const relay = createShowChatLive({ session, backoff: { firstMs: 100, maxMs: 1000 } });
    relays.push(relay);
    const received: Push[] = [];
    relay.onPush((p) => received.push(p as Push));
    return { relay, session, received };
  }

  async function scheduledShow(session: Awaited<ReturnType<typeof desktopRelay>>['session'], title: string): Promise<string> {
    const res = await session.request('POST', '/admin/live/shows', {
      title,
      accessLevel: 'free',
      startsAt: '2026-12-03T20:00:00Z',
      saveReplay: false,
    });
    expect(res.status).toBe(201);
    return (res.body.data as { show: { id: string } }).show.id;
  }

  it("a member's message reaches the relay; the console's delete and mute take effect", async () => {
    const d = await desktopRelay();
    const showId = await scheduledShow(d.session, 'Desk relay show');
    const api = apiClient(server.url);
    const member = await approvedMember(api, { firstName: 'Rhea', lastName: 'Member' });

    d.relay.follow(showId);
    await until('the relay to be live', () => d.relay.state().status === 'live');
    expect(d.relay.state()).toMatchObject({ status: 'live', showId });

    const posted = await api.post(`/live/shows/${showId}/chat`, { text: 'Hello from the audience' }, member.token);
    expect(posted.status).toBe(201);
    const message = posted.body.data.message as { id: string };
    await until('the message', () => d.received.some((p) => p.type === 'message' && p.message.id === message.id));
    expect(d.received.find((p) => p.type === 'message')).toMatchObject({
      type: 'message',
      message: { id: message.id, showId, text: 'Hello from the audience', authorId: member.id },
    });

    // The console deletes it (the renderer's client goes through this same session): the room is told.
    const deleted = await d.session.request('DELETE', `/admin/live/shows/${showId}/chat/${message.id}`);
    expect(deleted.status).toBe(200);
    await until('the deletion', () => d.received.some((p) => p.type === 'deleted' && p.messageId === message.id));
    const read = await api.get(`/live/shows/${showId}/chat`, member.token);
    expect(read.status).toBe(200);
    expect((read.body.data.messages as { id: string }[]).map((m) => m.id)).not.toContain(message.id);

    // The console mutes the member: their next message is refused.
    const muted = await d.session.request('POST', `/admin/live/shows/${showId}/chat/mutes`, { userId: member.id });
    expect(muted.status).toBe(200);
    const refused = await api.post(`/live/shows/${showId}/chat`, { text: 'Still here' }, member.token);
    expect(refused).toMatchObject({ status: 403, body: { success: false, code: 'live.chat_muted' } });
    expect(d.received.filter((p) => p.type === 'message')).toHaveLength(1);
  });

  it('following another show leaves the first room; stop leaves it too', async () => {
    const d = await desktopRelay();
    const first = await scheduledShow(d.session, 'First room');
    const second = await scheduledShow(d.session, 'Second room');
    const api = apiClient(server.url);
    const member = await approvedMember(api, { firstName: 'Omar', lastName: 'Member' });

    d.relay.follow(first);
    await until('the first room', () => d.relay.state().status === 'live');
    d.relay.follow(second);
    expect(d.relay.state().showId).toBe(second);
    await until('the second room', () => d.relay.state().status === 'live');

    expect((await api.post(`/live/shows/${first}/chat`, { text: 'in the first room' }, member.token)).status).toBe(201);
    expect((await api.post(`/live/shows/${second}/chat`, { text: 'in the second room' }, member.token)).status).toBe(201);
    await until('the second room message', () => d.received.some((p) => p.type === 'message' && p.message.text === 'in the second room'));
    expect(d.received.map((p) => (p.type === 'message' ? p.message.showId : p.showId))).toEqual([second]);

    d.relay.stop();
    expect(d.relay.state()).toMatchObject({ status: 'stopped', showId: null });
  });
});
