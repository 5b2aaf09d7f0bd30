/**
 * Erasure against mail in flight, on each store, over SMTP (a real smtp-server on loopback) and into
 * the dev outbox: hundreds of members, each erased the moment it registered (and was approved), while
 * the mail subscriber is writing their mails and two senders (the server's and a fast one, as a second
 * process would) are delivering them. On PostgreSQL the second sender and a second mail subscriber
 * run over a connection pool of their own, as another API process would, so only the database's
 * locks (not this process's bookkeeping) keep them apart from the erasure. Afterwards no erased
 * address is in the outbox table or in an .eml file, and every mail the SMTP server got for an erased
 * member had arrived before their erasure answered (a delivery already under way is waited for; none
 * starts after).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { forEachStore, randomBytes, startTestServer, type TestServer } from '../../test/harness.js';
import { openPostgres } from '../db/postgres.js';
import { startSubscribers } from '../eventstore/subscriber.js';
import { appendTestUser } from '../identity/identity.testkit.js';
import { identityMailSubscriber } from '../identity/mail.subscriber.js';
import { startMailSender } from '../mail/sender.js';
import { startSmtpServer } from '../mail/smtpServer.testkit.js';
import { eraseMember } from '../privacy/erasure.service.js';
import { modules } from '../wiring/modules.js';

const MEMBERS = 240;
const LANES = 8;

forEachStore('erasure against mail in flight', (kind) => {
  let server: TestServer | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    await smtp?.close();
    server = undefined;
    smtp = undefined;
  });

  for (const via of ['smtp', 'outbox'] as const) {
    it(`${via}: ${MEMBERS} members erased as they register leave no address in the outbox${via === 'smtp' ? ' and none delivered after their erasure' : ''}`, async () => {
      if (via === 'smtp') smtp = await startSmtpServer();
      server = await startTestServer(kind, { env: smtp ? { SMTP_URL: smtp.url } : {} });
      const ctx = server.ctx;
      // "Another process": on PostgreSQL a pool of its own for a second sender and mail subscriber.
      const otherDb = kind === 'postgres' ? openPostgres(server.store.env.DATABASE_URL as string, { max: 4 }) : undefined;
      const other = otherDb ? { ...ctx, db: otherDb } : ctx;
      const second = startMailSender(other, { pollMs: 2 });
      const otherSubscriber = otherDb ? startSubscribers(otherDb, ctx.store, [identityMailSubscriber(other)], { pollMs: 5 }) : undefined;
      const tag = randomBytes(4).toString('hex');
      const erasedAt = new Map<string, number>();
      let next = 0;
      const started = performance.now();
      try {
        await Promise.all(
          Array.from({ length: LANES }, async () => {
            for (let i = next++; i < MEMBERS; i = next++) {
              const id = `race-${tag}-${i}`;
              const email = `race-${tag}-${i}@example.test`;
              await appendTestUser(ctx, { id, email });
              // Vary the gap so the erasure meets the subscriber and the senders at every step.
              if (i % 3) await new Promise((r) => setTimeout(r, i % 5));
              const r = await eraseMember(ctx, modules, id, { requestedBy: 'admin', reason: 'race test' }, { actorId: 'test-admin' });
              expect(r.ok).toBe(true);
              erasedAt.set(email, performance.now());
            }
          }),
        );
        await server.subscribers.drain();
        await otherSubscriber?.drain();
        await second.drain();
      } finally {
        await second.stop();
        await otherSubscriber?.stop();
        await otherDb?.close();
      }
      // The server's own sender (every 500 ms) may still be delivering. A member registered now gets
      // mails only it sends (the second sender is stopped), after every mail queued before them (in
      // the order queued, one pass at a time): once theirs are sent, no earlier delivery is under way.
      const marker = `marker-${tag}@example.test`;
      await appendTestUser(ctx, { id: `marker-${tag}`, email: marker });
      await server.subscribers.drain();
      for (;;) {
        const m = await ctx.db.get<{ n: number; sent: number }>(
          'SELECT COUNT(*) AS n, COUNT(sent_at) AS sent FROM mail_outbox WHERE to_address = ?',
          [marker],
        );
        if (Number(m?.n) > 0 && Number(m?.sent) === Number(m?.n)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const ms = Math.round(performance.now() - started);
      const addresses = [...erasedAt.keys()];
      expect(addresses).toHaveLength(MEMBERS);

      const rows = await ctx.db.all<{ to_address: string; text_body: string }>('SELECT to_address, text_body FROM mail_outbox');
      const leftRows = rows.filter((r) => addresses.some((a) => r.to_address.toLowerCase() === a || r.text_body.toLowerCase().includes(a)));
      const dir = path.join(ctx.env.DATA_DIR, 'outbox');
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'latin1').toLowerCase()) : [];
      const leftFiles = files.filter((t) => addresses.some((a) => t.includes(a)));
      const delivered = smtp?.received.filter((m) => m.to.some((a) => erasedAt.has(a))) ?? [];
      const late = delivered.filter((m) => m.to.some((a) => m.at > (erasedAt.get(a) as number)));
      console.log(
        `[${kind}/${via}] ${MEMBERS} erasures racing mail in ${ms} ms: ${delivered.length} mails delivered to members being erased, ` +
          `${late.length} after; ${leftRows.length} outbox rows and ${leftFiles.length} .eml files left`,
      );
      expect(leftRows.map((r) => r.to_address)).toEqual([]);
      expect(leftFiles.length).toBe(0);
      expect(late.map((m) => m.to)).toEqual([]);
    }, 120_000);
  }
});
