/**
 * A live show's chat room across two API processes on one PostgreSQL (issue 43 item 4): this test's
 * server (A) and a real child server (B, `main.ts` as an operator runs it). A chat ticket issued by
 * A opens a member's room socket on B; messages posted through A reach it in order (LISTEN/NOTIFY,
 * read back from the read model), another show's message never does, and a deletion by staff
 * through A is pushed too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer } from '../../test/childServer.js';
import { apiClient, type FreshStore, freshStore, startTestServer, storeKinds, type TestServer, testEnv } from '../../test/harness.js';
import { createTestUser, grantPlanForTest } from '../streaming/viewers.testkit.js';
import { scheduleShow, startShow } from './shows.service.js';

const describePg = storeKinds.includes('postgres') ? describe : describe.skip;
const LADDER = [{ name: '240p', width: 426, height: 240, bandwidth: 500_000 }];

describePg('a live show chat room across two API processes on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let store: FreshStore;
  let a: TestServer;
  let b: ChildServer;

  beforeAll(async () => {
    store = await freshStore('postgres');
    a = await startTestServer('postgres', { store });
    // The same token secret, so a token A signs works on B too; B never ingests RTMP.
    b = await launchServer({ ...store.env, TOKEN_SECRET: testEnv().TOKEN_SECRET as string, LIVE_RTMP_PORT: '0' });
  }, 120_000);
  afterAll(async () => {
    if (b) await killHard(b);
    await a?.close();
  });

  async function liveShow(actorId: string): Promise<string> {
    const s = await scheduleShow(
      a.ctx,
      { title: 'Two processes', accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      { actorId },
    );
    if (!s.ok) throw new Error(s.error.message);
    expect((await startShow(a.ctx, s.value.show.id, s.value.streamKey, LADDER)).ok).toBe(true);
    return s.value.show.id;
  }

  it("pushes messages posted through A to a member's room socket on B, in order, never another show's, and staff's deletion", async () => {
    const api = apiClient(a.url);
    const admin = await createTestUser(a.ctx, { role: 'admin' });
    const alice = await createTestUser(a.ctx);
    const bob = await createTestUser(a.ctx);
    await grantPlanForTest(a.ctx, alice.id, 'monthly');
    await grantPlanForTest(a.ctx, bob.id, 'monthly');
    const showId = await liveShow(admin.id);
    const otherShowId = await liveShow(admin.id);
    const ticket = (await api.post('/chat/ticket', undefined, alice.token)).body.data.ticket as string;
    const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}/api/live/shows/${showId}/chat/socket?ticket=${ticket}`, {
      headers: { origin: b.url },
    });
    const received: { type: string; message?: { id: string; text: string }; messageId?: string }[] = [];
    let onMessage: () => void = () => {};
    ws.addEventListener('message', (e) => {
      received.push(JSON.parse(String(e.data)));
      onMessage();
    });
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error('socket on B failed')));
    });
    const next = () => {
      // Bounded only to catch a hang.
      let hang: NodeJS.Timeout | undefined;
      return new Promise<void>((resolve, reject) => {
        onMessage = resolve;
        hang = setTimeout(() => reject(new Error('nothing was pushed')), 30_000);
      }).finally(() => clearTimeout(hang));
    };
    try {
      const posted: string[] = [];
      // Each of Bob's messages in this room follows one in the other show's room: a message of the
      // other room pushed by mistake would come before the one that follows it.
      for (let i = 0; i < 4; i++) {
        expect((await api.post(`/live/shows/${otherShowId}/chat`, { text: `elsewhere ${i}` }, bob.token)).status).toBe(201);
        const arrived = next();
        const r = await api.post(`/live/shows/${showId}/chat`, { text: `here ${i}` }, bob.token);
        expect(r.status).toBe(201);
        posted.push(r.body.data.message.id);
        await arrived;
        expect(received.at(-1)).toMatchObject({ type: 'message', message: { id: r.body.data.message.id, text: `here ${i}` } });
      }
      expect(received.map((p) => p.message?.id)).toEqual(posted);
      const arrived = next();
      expect((await api.call('DELETE', `/admin/live/shows/${showId}/chat/${posted[0]}`, { token: admin.token })).status).toBe(200);
      await arrived;
      expect(received.at(-1)).toEqual({ type: 'deleted', showId, messageId: posted[0] });
    } finally {
      ws.close();
    }
  });
});
