/**
 * Mails end their lines with CRLF (RFC 5322 §2.1), in the dev outbox's .eml files and over SMTP (a
 * real smtp-server on loopback), checked byte by byte and by a parser nobody here wrote: Python's
 * `email` package with `policy=email.policy.strict` (raises on any defect), which must find the
 * headers and the text we queued.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, type TestServer } from '../../test/harness.js';
import { registerMember } from '../identity/identity.testkit.js';
import { type StrictlyParsed as Parsed, startSmtpServer, strictParse } from './smtpServer.testkit.js';

async function waitFor<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function checkMail(p: Parsed, email: string) {
  expect(p.bareLf).toBe(0);
  expect(p.loneCr).toBe(0);
  expect(p.defects).toEqual([]);
  expect(p.to).toBe(email);
  expect(p.messageId).toMatch(/^<[0-9a-f]{32}@[^>]+>$/);
  expect(p.text).toContain('Mia');
}

describe('mail line ends', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let viaSmtp: TestServer;
  let viaOutbox: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    viaSmtp = await startTestServer('sqlite', { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Members <no-reply@members.example.test>' } });
    viaOutbox = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await viaSmtp?.close();
    await viaOutbox?.close();
    await smtp?.close();
  });

  it('.eml files in the dev outbox use CRLF and pass a strict RFC 5322 parser', async () => {
    const m = await registerMember(apiClient(viaOutbox.url));
    const dir = path.join(viaOutbox.ctx.env.DATA_DIR, 'outbox');
    const files = await waitFor(() => fs.existsSync(dir) && fs.readdirSync(dir).length >= 2 && fs.readdirSync(dir), '.eml files');
    for (const f of files) {
      const parsed = strictParse(fs.readFileSync(path.join(dir, f)));
      checkMail(parsed, m.email);
    }
  });

  it('mails over SMTP use CRLF and pass a strict RFC 5322 parser', async () => {
    const m = await registerMember(apiClient(viaSmtp.url));
    const got = await waitFor(() => {
      const mine = smtp.received.filter((r) => r.to.includes(m.email.toLowerCase()));
      return mine.length >= 2 && mine;
    }, 'SMTP mails');
    for (const r of got) checkMail(strictParse(r.raw), m.email);
  });
});
