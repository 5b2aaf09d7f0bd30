/**
 * A store whose subscribers' checkpoints are far behind the head (a restored copy, a long outage, a
 * new subscriber): the server answers at once and catches up beside serving, reporting its lag.
 */
import { afterEach, expect, it } from 'vitest';
import { apiClient, type FreshStore, forEachStore, freshStore, startTestServer, type TestServer, testEnv } from '../../test/harness.js';
import { exampleSiteConfig } from '../../test/siteConfig.js';
import { closeContext, createContext } from '../kernel/context.js';
import { createTestUser } from '../streaming/viewers.testkit.js';
import { modules } from '../wiring/modules.js';

/**
 * Registrations: each one is work for the identity mail subscriber (two outbox rows, about ten
 * queries). Several batches of CATCH_UP_BATCH (500): the server answers after the first, long before
 * the last. SQLite handles a registration in well under a millisecond, so it gets ten batches;
 * PostgreSQL spends 7–14 ms of round trips on one on the loaded CI machine, so four batches are
 * already about 15–55 s of catching up (ten took 69 s of the suite's time).
 */
const MEMBERS = { sqlite: 5_000, postgres: 2_000 } as const;
const PER_APPEND = 500;

forEachStore('catch-up beside serving', (kind) => {
  const members = MEMBERS[kind];
  let server: TestServer | undefined;
  let store: FreshStore | undefined;
  afterEach(async () => {
    await server?.close();
    server = store = undefined;
  });

  it('answers /api/health with the lag while a subscriber catches up on thousands of events', async () => {
    store = await freshStore(kind);
    // The log written directly through the store API, with no subscriber running: their checkpoints stay at 0.
    const ctx = await createContext(
      testEnv(store.env),
      exampleSiteConfig(),
      modules.flatMap((m) => m.projections ?? []),
    );
    const at = new Date().toISOString();
    for (let i = 0; i < members; i += PER_APPEND) {
      const events = Array.from({ length: PER_APPEND }, (_, j) => {
        const id = `restored-${i + j}`;
        return {
          type: 'UserRegistered',
          data: {
            userId: id,
            email: `${id}@example.test`,
            firstName: 'Restored',
            lastName: 'Member',
            dateOfBirth: '1990-01-01',
            passwordHash: 'x',
            role: 'member',
            registeredAt: at,
          },
        };
      });
      await ctx.store.append(`import-${i}`, events, { expectedVersion: 'no_stream', metadata: { actorId: null, at } });
    }
    const head = await ctx.store.headPosition();
    expect(head).toBe(members);
    await closeContext(ctx);

    server = await startTestServer(kind, { store });
    const api = apiClient(server.url);
    // The details are an admin's (anonymous callers get `{ status }`); a token signed here, no login in between.
    const admin = (await createTestUser(server.ctx, { role: 'admin' })).token;
    const during = await api.get('/health', admin);
    expect(during.status).toBe(200);
    // Answered before the catch-up finished: the identity mail subscriber still has most of the log ahead.
    expect(during.body.data.subscriberLag).toBeGreaterThan(0);
    const identity = during.body.data.subscribers.find((s: { name: string }) => s.name === 'identity-mail');
    expect(identity.lag).toBeGreaterThan(0);

    await server.subscribers.drain();
    const after = await api.get('/health', admin);
    expect(after.body.data.subscriberLag).toBe(0);
    expect(after.body.data.headPosition).toBeGreaterThanOrEqual(head);
    // Every registration's two mails were queued exactly once.
    const mails = await server.ctx.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM mail_outbox WHERE key LIKE 'registration-received:%'");
    expect(Number(mails?.n)).toBe(members);
  }, 600_000);
});
