/**
 * Two API processes on one PostgreSQL (issue 30 item 3): this test's server (A) and a real child
 * server (B, `main.ts` as an operator runs it). A ticket issued by A opens a member's socket on B;
 * a reply the admin posts through A reaches it (LISTEN/NOTIFY, read back from the read model; how
 * fast is bench/chat.ts's fan-out figure, not this test's), another member's message never does; a
 * message acknowledged by B survives B's kill.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer } from '../../test/childServer.js';
import { type FreshStore, freshStore, startTestServer, storeKinds, type TestServer, testEnv } from '../../test/harness.js';
import { billingTestKit, HASH, type Member, seedMember } from '../billing/billing.testkit.js';

const describePg = storeKinds.includes('postgres') ? describe : describe.skip;

describePg('chat across two API processes on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let store: FreshStore;
  let a: TestServer;
  let b: ChildServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  let hashes = 9000;

  beforeAll(async () => {
    store = await freshStore('postgres');
    a = await startTestServer('postgres', { store });
    kit = await billingTestKit(a);
    // The same token secret, so a token A signs works on B too.
    b = await launchServer({ ...store.env, TOKEN_SECRET: testEnv().TOKEN_SECRET as string });
  }, 120_000);
  afterAll(async () => {
    if (b) await killHard(b);
    await a?.close();
  });

  async function subscribed(): Promise<Member> {
    const m = await seedMember(a);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }

  it("pushes a reply posted through A to the member's socket on B, and never another member's message", async () => {
    const alice = await subscribed();
    const bob = await subscribed();
    const ticket = (await kit.api.post('/chat/ticket', undefined, alice.token)).body.data.ticket as string;
    const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}/api/chat/socket?ticket=${ticket}`, { headers: { origin: b.url } });
    const received: { type: string; message: { id: string; userId: string; text: string } }[] = [];
    let onMessage: () => void = () => {};
    ws.addEventListener('message', (e) => {
      received.push(JSON.parse(String(e.data)));
      onMessage();
    });
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error('socket on B failed')));
    });
    try {
      const replies: string[] = [];
      // Six replies, each after one of Bob's messages but the first: B pushes in the order the
      // messages were stored (one LISTEN connection, NOTIFY at commit), so a message of Bob's pushed
      // to Alice by mistake would come before the reply that follows it.
      for (let i = 0; i < 6; i++) {
        // Bounded only to catch a hang (bench/chat.ts measures how fast).
        let hang: NodeJS.Timeout | undefined;
        const arrived = new Promise<void>((resolve, reject) => {
          onMessage = resolve;
          hang = setTimeout(() => reject(new Error(`reply ${i} was not pushed`)), 30_000);
        });
        const r = await kit.api.post(`/admin/chat/conversations/${alice.id}/messages`, { text: `reply ${i}` }, kit.admin);
        expect(r.status).toBe(201);
        replies.push(r.body.data.message.id);
        await arrived.finally(() => clearTimeout(hang));
        expect(received.at(-1)?.message).toMatchObject({ id: r.body.data.message.id, userId: alice.id, text: `reply ${i}` });
        // Bob's message goes through A too: it must not reach Alice's socket.
        if (i < 5) expect((await kit.api.post('/chat/messages', { text: `bob ${i}` }, bob.token)).status).toBe(201);
      }
      expect(received.map((p) => p.message.id)).toEqual(replies);
    } finally {
      ws.close();
    }
  });

  it('keeps a message B acknowledged after B is killed', async () => {
    const m = await subscribed();
    const r = await fetch(`${b.url}/api/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${m.token}` },
      body: JSON.stringify({ text: 'stored before the 201' }),
    });
    expect(r.status).toBe(201);
    const id = ((await r.json()) as { data: { message: { id: string } } }).data.message.id;
    await killHard(b);
    const mine = (await kit.api.get('/chat/messages', m.token)).body.data.messages as { id: string; text: string }[];
    expect(mine).toEqual([expect.objectContaining({ id, text: 'stored before the 201' })]);
  });
});
