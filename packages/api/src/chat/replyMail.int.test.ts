/**
 * The mail to a member who is offline when the team replies (replyMail.ts), on both stores, on the
 * production configuration, through a real SMTP server: one mail for a burst of three replies (and
 * no second until the member reads; then one for the next burst), parsed by a strict RFC 5322 parser
 * and carrying no message text; none when the member read in time, was online, turned it off, or is
 * suspended; the daily cap. Then two API processes on one PostgreSQL: exactly one mail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer } from '../../test/childServer.js';
import { forEachStore, freshStore, startTestServer, storeKinds, type TestServer, testEnv } from '../../test/harness.js';
import { billingTestKit, HASH, type Member, seedMember } from '../billing/billing.testkit.js';
import { publicUrl } from '../http/linkOrigin.js';
import { enrolSecondFactor, login } from '../identity/identity.testkit.js';
import { startSmtpServer, strictParse } from '../mail/smtpServer.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';
import { decideDueReplyMails, type ReplyBurstRow } from './replyMail.js';

const DELAY_S = 60;
const isReplyMail = (raw: Buffer) => /^Subject: You have a new reply\r?$/m.test(raw.toString('utf8'));
let hashes = 7100;

/** Polls `probe` until it is truthy; the bound only catches a hang. */
async function until<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<Exclude<T, undefined | false>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as Exclude<T, undefined | false>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

forEachStore('chat reply mail (production)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  // (The member's registration mails go to the same SMTP server.)
  const received = (m: Member) => smtp.received.filter((r) => r.to.includes(m.email.toLowerCase()) && isReplyMail(r.raw));

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const env = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://videos.example.test',
      SMTP_URL: smtp.url,
      AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000',
      CHAT_MAIL_DELAY_SECONDS: String(DELAY_S),
    };
    server = await startTestServer(kind, { env });
    kit = await billingTestKit(server);
    // Production: the admin enrols a second factor before anything else.
    const admin = await login(kit.api, 'admin@example.test', 'admin-password-123');
    await enrolSecondFactor(kit.api, server.clock, admin.token);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  async function subscribed(): Promise<Member> {
    const m = await seedMember(server);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }

  async function reply(m: Member, text: string) {
    const r = await kit.api.post(`/admin/chat/conversations/${m.id}/messages`, { text }, kit.admin);
    expect(r.status).toBe(201);
  }

  const burst = (m: Member) => server.ctx.db.get<ReplyBurstRow>('SELECT * FROM chat_reply_mails WHERE user_id = ?', [m.id]);

  /** Moves past the delay and has the worker decide the member's burst; answers its outcome. */
  async function decide(m: Member): Promise<string | null | undefined> {
    await server.subscribers.drain();
    server.clock.advance((DELAY_S + 1) * 1000);
    await decideDueReplyMails(server.ctx);
    // The leader's own worker may have claimed it first: wait for its decision.
    const decided = await until(async () => {
      const b = await burst(m);
      return b?.state === 'waiting' ? undefined : { b };
    }, 'the burst decided');
    return decided.b?.outcome;
  }

  /** Every queued mail has been handed to the SMTP server. */
  const sent = () =>
    until(async () => {
      const r = await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NULL');
      return Number(r?.n) === 0;
    }, 'the outbox to be sent');

  it('a burst of three replies to an offline member gets one discreet mail; no second until they read; the next burst one more', async () => {
    const m = await subscribed();
    const secrets = ['Your custom clip with Scarlett is ready', 'It is 12 minutes long', 'Enjoy, Scarlett'];
    for (const text of secrets) await reply(m, text);
    expect(await decide(m)).toBe('mailed');
    await until(() => received(m).length === 1, 'the reply mail');
    const mail = received(m)[0] as (typeof smtp.received)[number];
    const parsed = strictParse(mail.raw);
    expect(parsed.defects).toEqual([]);
    expect(parsed.bareLf).toBe(0);
    expect(parsed.loneCr).toBe(0);
    expect(parsed.to).toBe(m.email);
    expect(parsed.subject).toBe('You have a new reply');
    const origin = publicUrl(server.ctx.env);
    expect(origin).toBe('https://videos.example.test');
    expect(parsed.text).toContain(`${origin}/chat`);
    expect(parsed.headers['list-unsubscribe']).toBe(`<${origin}/account#notifications>`);
    // Discreet: no message text, no name of anyone or anything, not even the site's.
    const raw = mail.raw.toString('utf8');
    for (const word of ['Scarlett', 'custom clip', '12 minutes', 'Test']) expect(raw).not.toContain(word);
    expect(parsed.subject + parsed.text).not.toContain(server.site.siteName);

    // A fourth reply before the member read: the same burst, no second mail.
    await reply(m, 'Did you see it?');
    server.clock.advance((DELAY_S + 1) * 1000);
    await server.subscribers.drain();
    expect(await decideDueReplyMails(server.ctx)).toEqual([]);
    expect((await burst(m))?.state).toBe('mailed');

    // They read: the burst is over; the next reply starts a new one, which gets its mail.
    expect((await kit.api.post('/chat/read', undefined, m.token)).body.data.read).toBe(4);
    await server.subscribers.drain();
    expect(await burst(m)).toBeUndefined();
    await reply(m, 'One more thing');
    expect(await decide(m)).toBe('mailed');
    await until(() => received(m).length === 2, 'the second burst mail');
    await sent();
    expect(received(m)).toHaveLength(2);
  });

  it('no mail when the member read the replies before the delay ran out', async () => {
    const m = await subscribed();
    await reply(m, 'Hello there');
    await reply(m, 'Still there?');
    expect((await kit.api.post('/chat/read', undefined, m.token)).status).toBe(200);
    await server.subscribers.drain();
    expect(await burst(m)).toBeUndefined();
    server.clock.advance((DELAY_S + 1) * 1000);
    await decideDueReplyMails(server.ctx);
    await sent();
    expect(received(m)).toEqual([]);
  });

  it('no mail when the member was online: the reply was pushed to their socket, or their unread badge showed it', async () => {
    const m = await subscribed();
    const ticket = (await kit.api.post('/chat/ticket', undefined, m.token)).body.data.ticket as string;
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/chat/socket?ticket=${ticket}`, {
      headers: { origin: new URL(publicUrl(server.ctx.env)).origin },
    });
    const pushed = new Promise<void>((resolve) => ws.addEventListener('message', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error('socket failed')));
    });
    await reply(m, 'Live reply');
    await pushed;
    ws.close();
    expect(await decide(m)).toBe('online');

    const badge = await subscribed();
    await reply(badge, 'Seen in the header');
    expect((await kit.api.get('/chat/status', badge.token)).body.data.unread).toBe(1);
    expect(await decide(badge)).toBe('online');
    await sent();
    expect([...received(m), ...received(badge)]).toEqual([]);
  });

  it('no mail once the member turned it off in their settings; the choice is theirs, validated, and in their export', async () => {
    const m = await subscribed();
    expect((await kit.api.get('/users/me/notifications', m.token)).body.data).toEqual({ chatReplyMail: true });
    const bad = await kit.api.call('PUT', '/users/me/notifications', { token: m.token, body: { chatReplyMail: 'no' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'validation.invalid_body' });
    const off = await kit.api.call('PUT', '/users/me/notifications', { token: m.token, body: { chatReplyMail: false } });
    expect(off).toMatchObject({ status: 200, body: { data: { chatReplyMail: false } } });
    expect((await kit.api.get('/users/me/notifications', m.token)).body.data).toEqual({ chatReplyMail: false });
    const exported = await kit.api.get('/users/me/export', m.token);
    expect((exported.body as unknown as { notifications: unknown }).notifications).toEqual({ chatReplyMail: false });

    await reply(m, 'You will not hear about this one');
    expect(await decide(m)).toBe('opted_out');
    await sent();
    expect(received(m)).toEqual([]);
  });

  it('no mail to a suspended member', async () => {
    const m = await subscribed();
    await reply(m, 'About your account');
    expect((await kit.api.post(`/admin/users/${m.id}/suspend`, { reason: 'Chargeback fraud' }, kit.admin)).status).toBe(200);
    expect(await decide(m)).toBe('not_active');
    await sent();
    expect(received(m)).toEqual([]);
  });

  it('at most CHAT_MAILS_PER_MEMBER_PER_DAY mails a day, however many bursts', async () => {
    const m = await subscribed();
    const outcomes: (string | null | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      await reply(m, `Burst ${i}`);
      outcomes.push(await decide(m));
      await kit.api.post('/chat/read', undefined, m.token);
      await server.subscribers.drain();
    }
    expect(outcomes).toEqual(['mailed', 'mailed', 'mailed', 'daily_cap']);
    await until(() => received(m).length === 3, 'three mails');
    await sent();
    expect(received(m)).toHaveLength(3);
  });
});

/** A clock that follows real time (the child process's is the system clock). */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

const describePg = storeKinds.includes('postgres') ? describe : describe.skip;

describePg('chat reply mail across two API processes on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let a: TestServer;
  let b: ChildServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const store = await freshStore('postgres');
    const env = { SMTP_URL: smtp.url, CHAT_MAIL_DELAY_SECONDS: '1' };
    a = await startTestServer('postgres', { store, env, clock: new WallClock() });
    kit = await billingTestKit(a);
    b = await launchServer({ ...store.env, ...env, TOKEN_SECRET: testEnv().TOKEN_SECRET as string });
  }, 120_000);
  afterAll(async () => {
    if (b) await killHard(b);
    await a?.close();
    await smtp?.close();
  });

  it('replies through both processes, both deciding at once: exactly one mail', async () => {
    const m = await seedMember(a);
    const s = await kit.submit(m, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(7999) });
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    for (const [i, base] of [a.url, b.url, a.url].entries()) {
      const r = await fetch(`${base}/api/admin/chat/conversations/${m.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${kit.admin}` },
        body: JSON.stringify({ text: `reply ${i}` }),
      });
      expect(r.status).toBe(201);
    }
    // Besides the leader's own worker (in A or B), A decides over and over, several at once, for 3 s.
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      await Promise.all([1, 2, 3, 4].map(() => decideDueReplyMails(a.ctx)));
      await new Promise((r) => setTimeout(r, 20));
    }
    const replyMails = () => smtp.received.filter((r) => r.to.includes(m.email.toLowerCase()) && isReplyMail(r.raw));
    await until(() => replyMails().length > 0, 'the reply mail', 30_000);
    // The burst is decided (no decider may take it again) and every queued mail has been handed to
    // the SMTP server: a second mail would be in the outbox, or at the server, by now.
    await until(async () => {
      const b = await a.ctx.db.get<ReplyBurstRow>('SELECT * FROM chat_reply_mails WHERE user_id = ?', [m.id]);
      return b?.state === 'mailed';
    }, 'the burst decided');
    await until(async () => {
      const r = await a.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NULL');
      return Number(r?.n) === 0;
    }, 'the outbox to be sent');
    expect(replyMails()).toHaveLength(1);
    const rows = await a.ctx.db.all('SELECT key FROM mail_outbox WHERE subject_id = ?', [m.id]);
    expect(rows.filter((r) => String((r as { key: string }).key).startsWith('chat-reply:'))).toHaveLength(1);
  }, 60_000);
});
