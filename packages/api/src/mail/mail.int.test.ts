/**
 * The identity e-mails through the outbox and the sender to a REAL SMTP server (smtp-server on a
 * loopback port): the right recipients and subjects, a Message-ID from the outbox key, retries
 * after a refused delivery, and no duplicate after a crash-like restart. Without SMTP_URL, mails
 * land as .eml files in DATA_DIR/outbox.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { adminLogin, registerMember } from '../identity/identity.testkit.js';
import type { OutboxRow } from './outbox.js';
import { messageIdFor } from './transport.js';

interface Received {
  to: string[];
  subject: string;
  messageId: string;
  raw: string;
}

function header(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
}

async function startSmtp() {
  const received: Received[] = [];
  const refusing = new Set<string>();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refusing.delete(address.address)) {
        return callback(Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 450 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header(raw, 'Subject'),
          messageId: header(raw, 'Message-ID'),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The next delivery to this address is refused once (a temporary 450). */
    refuseOnce: (address: string) => refusing.add(address),
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `probe` until it is truthy; the bound only catches a hang. */
async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<Truthy<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

forEachStore('mail', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Members <no-reply@members.example.test>' } });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));
  const outbox = () => server.ctx.db.all<OutboxRow>('SELECT * FROM mail_outbox ORDER BY key');

  describe('over SMTP', () => {
    it('register then approve: the registration, verification and approval mails arrive', async () => {
      const m = await registerMember(api);
      const first = await waitFor(() => mailsTo(m.email).length >= 2 && mailsTo(m.email), 'registration mails');
      expect(first.map((r) => r.subject).sort()).toEqual([
        `${server.site.siteName}: please verify your e-mail address`,
        `${server.site.siteName}: we received your registration`,
      ]);
      const admin = await adminLogin(api);
      expect((await api.post(`/admin/users/${m.id}/approve`, undefined, admin.token)).status).toBe(200);
      const approved = await waitFor(() => mailsTo(m.email).find((r) => r.subject.includes('approved')), 'approval mail');
      expect(approved.subject).toBe(`${server.site.siteName}: your account has been approved`);
      const row = await waitFor(
        async () => (await outbox()).find((r) => r.to_address === m.email && r.key.startsWith('user-approved:') && r.sent_at),
        'approval marked sent',
      );
      expect(approved.messageId).toBe(messageIdFor(row.key, server.ctx.env.MAIL_FROM));
    });

    it('reject sends the rejection mail with the reason', async () => {
      const m = await registerMember(api);
      const admin = await adminLogin(api);
      await api.post(`/admin/users/${m.id}/reject`, { reason: 'Blurry ID photo' }, admin.token);
      const mail = await waitFor(() => mailsTo(m.email).find((r) => r.subject.includes('not approved')), 'rejection mail');
      expect(mail.raw).toContain('Blurry ID photo');
    });

    it('the reset link mail arrives', async () => {
      const m = await registerMember(api);
      await api.post('/auth/reset-password', { email: m.email });
      const mail = await waitFor(() => mailsTo(m.email).find((r) => r.subject.includes('reset your password')), 'reset mail');
      expect(mail.raw).toContain('/auth/forgot-password?token=');
    });

    it('a refused delivery is retried with backoff and then sent once', async () => {
      const email = `retry-${kind}@example.test`;
      smtp.refuseOnce(email);
      const m = await registerMember(api, { email });
      const failed = await waitFor(async () => (await outbox()).find((r) => r.to_address === m.email && r.last_error), 'a failed attempt');
      expect(failed.sent_at).toBeNull();
      server.clock.advance(31_000);
      await waitFor(async () => (await outbox()).filter((r) => r.to_address === m.email && r.sent_at).length === 2, 'both mails sent');
      expect(mailsTo(m.email)).toHaveLength(2);
    });

    it('a crash-like restart (checkpoint lost) neither duplicates outbox rows nor resends', async () => {
      const m = await registerMember(api);
      await waitFor(() => mailsTo(m.email).length === 2, 'registration mails');
      const rows = (await outbox()).length;
      const sent = smtp.received.length;
      // As if the process died after queuing but before its checkpoint moved: replay everything.
      await server.ctx.db.run(`UPDATE checkpoints SET position = 0 WHERE name = 'identity-mail'`);
      server = await server.restart();
      api = apiClient(server.url);
      await server.subscribers.drain();
      // The replay is over; a mail queued after it is sent by the restarted sender, which sends in
      // the order queued: once it is out and nothing waits, a resend would have gone out before it.
      const later = await registerMember(api);
      await waitFor(() => mailsTo(later.email).length === 2, 'the mails queued after the restart');
      await waitFor(async () => (await outbox()).every((r) => r.sent_at || r.last_error), 'nothing left to send');
      expect((await outbox()).length).toBe(rows + 2);
      expect(smtp.received.length).toBe(sent + 2);
      expect(mailsTo(m.email)).toHaveLength(2);
    });
  });
});

describe('mail without SMTP_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.close());

  it('writes each mail as an .eml file under DATA_DIR/outbox', async () => {
    const api = apiClient(server.url);
    const m = await registerMember(api);
    const dir = path.join(server.ctx.env.DATA_DIR, 'outbox');
    const files = await waitFor(
      () => fs.existsSync(dir) && fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).length >= 2 && fs.readdirSync(dir),
      '.eml files',
    );
    const texts = files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    expect(texts.some((t) => t.includes(`To: ${m.email}`) && t.includes('we received your registration'))).toBe(true);
  });
});
