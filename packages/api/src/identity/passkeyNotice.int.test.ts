/**
 * A passkey signs in without the password, so the holder hears of every passkey added to or removed
 * from their account (issue 42): a security notice over real SMTP on the production configuration,
 * both stores, read by a strict e-mail parser nobody here wrote (smtpServer.testkit.ts), naming the
 * passkey and the time and saying what to do if it was not them; a name carrying a link cannot put
 * one in the mail; the notices count against the mail limits' per-account budget of notices.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { type ReceivedMail, startSmtpServer, strictParse } from '../mail/smtpServer.testkit.js';
import { approvedMember } from './identity.testkit.js';
import { mailTime } from './mails.js';
import { SoftAuthenticator } from './passkey.testkit.js';

const PUBLIC_URL = 'https://members.example.test';
/** The notices' own budget per account and hour (MAILS_PER_ACCOUNT_PER_HOUR). */
const NOTICES_PER_HOUR = 3;

forEachStore('passkey notices (production, SMTP)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer(kind, {
      env: {
        NODE_ENV: 'production',
        PUBLIC_URL,
        SMTP_URL: smtp.url,
        REQUIRE_ADMIN_2FA: 'false',
        AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000',
        MAILS_PER_ACCOUNT_PER_HOUR: String(NOTICES_PER_HOUR),
      },
    });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  async function register(token: string, name: string) {
    const started = await api.post('/auth/passkeys/registration', undefined, token);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { ceremonyId, options } = started.body.data;
    const credential = new SoftAuthenticator(PUBLIC_URL).create(options);
    const res = await api.post('/auth/passkeys', { ceremonyId, name, credential }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.passkey as { id: string; name: string; createdAt: string };
  }

  /** The `n`-th passkey notice to `email` as the SMTP server received it (waits for the outbox's background delivery). */
  async function notice(email: string, n: number): Promise<ReceivedMail> {
    for (;;) {
      const notices = smtp.received.filter((m) => m.to.includes(email.toLowerCase()) && /a passkey was/.test(m.raw.toString('utf8')));
      if (notices[n]) return notices[n];
      // The test's timeout bounds the wait.
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('adding and removing a passkey each mails the holder a notice naming it and the time, with what to do if it was not them', async () => {
    const m = await approvedMember(api);
    const added = await register(m.token, 'Work laptop');
    const addedAt = server.clock.now().toISOString();

    const first = strictParse((await notice(m.email, 0)).raw);
    expect({ bareLf: first.bareLf, loneCr: first.loneCr, defects: first.defects }).toEqual({ bareLf: 0, loneCr: 0, defects: [] });
    expect(first.to).toContain(m.email);
    expect(first.subject).toMatch(/: a passkey was added to your account$/);
    expect(first.text).toContain(`A passkey named "Work laptop" was added to your account on ${mailTime(addedAt)}.`);
    expect(first.text).toContain('If this was not you, reset your password now');
    expect(first.text).toContain(`${PUBLIC_URL}/auth/forgot-password`);

    server.clock.advance(90_000);
    const removedAt = server.clock.now().toISOString();
    const removed = await api.call('DELETE', `/auth/passkeys/${added.id}`, { token: m.token });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const second = strictParse((await notice(m.email, 1)).raw);
    expect(second.defects).toEqual([]);
    expect(second.subject).toMatch(/: a passkey was removed from your account$/);
    // The removal's event names only the passkey's id: the name is the one it was registered with.
    expect(second.text).toContain(`The passkey named "Work laptop" was removed from your account on ${mailTime(removedAt)}.`);
    expect(second.text).toContain('If this was not you');
    expect(mailTime(removedAt)).not.toBe(mailTime(addedAt));
  }, 60_000);

  it('a name with a link puts no link in the notice, and notices stop at the per-account budget', async () => {
    const m = await approvedMember(api);
    await register(m.token, 'Prize at https://phish.example/win');
    const parsed = strictParse((await notice(m.email, 0)).raw);
    expect(parsed.text).toContain('A passkey named "Prize at" was added');
    expect(parsed.text).not.toContain('phish.example');

    // Two more fill the budget (three notices an hour); a fourth passkey is registered but not told.
    for (const name of ['Phone', 'Tablet', 'Desk key']) await register(m.token, name);
    await server.subscribers.drain();
    const queued = (await mailsTo(server, m.email)).filter((r) => r.key.startsWith('passkey-added:'));
    // (Queued in one clock instant: the outbox's order among them is its keys', not the events'.)
    expect(queued.map((r) => /named "([^"]+)"/.exec(r.text_body)?.[1]).sort()).toEqual(['Phone', 'Prize at', 'Tablet']);
    expect((await api.get('/auth/passkeys', m.token)).body.data.passkeys).toHaveLength(4);
  }, 60_000);
});
