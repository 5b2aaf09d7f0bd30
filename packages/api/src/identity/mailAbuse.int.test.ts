/**
 * Mail that cannot be abused, as an attacker would try it on the production configuration, with a
 * real SMTP server: a pending account named like a phishing line cannot have a mail sent to a third
 * party (403), names reach mails as plain text without link-like words, fifteen reset requests for
 * one address get fifteen identical answers and at most MAILS_PER_RECIPIENT_PER_HOUR mails, a
 * registration with a used address answers like a new one and tells the holder (within the same
 * limit), and the log names outbox keys, never addresses, for sends and failed sends alike. Without
 * SMTP, the outbox files are readable by the server's user only.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import type { OutboxRow } from '../mail/outbox.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { startSmtpServer } from '../mail/smtpServer.testkit.js';
import { enrolSecondFactor, login, registerMember, registrationPayload } from './identity.testkit.js';
import { EMAIL_CHANGE_APPROVED_ONLY } from './user.decider.js';

const PHISH = 'friend! Claim your prize at https://phish.example/win';
/** The production default of MAILS_PER_RECIPIENT_PER_HOUR. */
const PER_RECIPIENT = 5;

/** A log that keeps every line, as a log shipper would. */
function capturedLog() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) };
}

async function until<T>(probe: () => Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every queued mail has been handed to the transport (or has failed once). */
async function settled(server: TestServer): Promise<void> {
  await server.subscribers.drain();
  await until(async () => {
    const row = await server.ctx.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NULL AND last_error IS NULL',
    );
    return Number(row?.n) === 0;
  }, 'the outbox to be sent');
}

/**
 * CPU time (user + system, every thread: argon2 runs on the thread pool) this process spends on one
 * request to the in-process server. Unlike wall time, it does not grow while the machine is busy
 * with other processes, so it can compare the work two answers took on a loaded 2-core machine.
 */
async function cpuMs<T>(request: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const before = process.cpuUsage();
  const res = await request();
  const used = process.cpuUsage(before);
  return { res, ms: (used.user + used.system) / 1000 };
}

// The registration test compares the CPU of requests that hash a password with one that does not:
// this file hashes at the production cost, not the suites' minimum (identity/passwords.ts).
const suiteCost = process.env.PASSWORD_HASH_COST;
beforeAll(() => {
  delete process.env.PASSWORD_HASH_COST;
});
afterAll(() => {
  if (suiteCost !== undefined) process.env.PASSWORD_HASH_COST = suiteCost;
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

const shape = (v: unknown): unknown =>
  v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : v === null ? null : typeof v;

forEachStore('mail abuse (production)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  /** The admin's session (production: enrolled in a second factor first). */
  let adminToken: string;
  const log = capturedLog();
  const addresses: string[] = [];
  const received = (email: string) => smtp.received.filter((r) => r.to.includes(email.toLowerCase()));

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Every request of this suite comes from 127.0.0.1: the per-IP auth limit is not what is tested here.
    const env = { NODE_ENV: 'production', SMTP_URL: smtp.url, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' };
    server = await startTestServer(kind, { env, logger: log.logger });
    api = apiClient(server.url);
    adminToken = (await login(api, TEST_ADMIN.email, TEST_ADMIN.password)).token;
    await enrolSecondFactor(api, server.clock, adminToken);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it('a pending account named like a phishing line cannot have a mail sent to a third party', async () => {
    const m = await registerMember(api);
    addresses.push(m.email);
    const { token } = await login(api, m.email, m.password);
    expect((await api.put('/users/profile', { firstName: PHISH }, token)).status).toBe(200);
    const victim = `victim-${kind}@third-party.example`;
    addresses.push(victim);
    for (const password of [m.password, 'not-the-password']) {
      const res = await api.post('/users/me/email', { password, newEmail: victim }, token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: EMAIL_CHANGE_APPROVED_ONLY, code: 'user.email_change_not_allowed' });
    }
    // An address that has an account answers the same: a pending account learns nothing from it.
    expect((await api.post('/users/me/email', { password: m.password, newEmail: 'admin@example.test' }, token)).status).toBe(403);
    await settled(server);
    expect(received(victim)).toEqual([]);
    expect(await mailsTo(server, victim)).toEqual([]);
    expect((await server.ctx.store.readStream(`user-${m.id}`)).map((e) => e.type)).not.toContain('EmailChangeRequested');
  });

  it('an approved member with that name: the mail to the new address carries no link-like word of it', async () => {
    const registered = await registerMember(api);
    expect((await api.post(`/admin/users/${registered.id}/approve`, undefined, adminToken)).status).toBe(200);
    const m = { ...registered, ...(await login(api, registered.email, registered.password)) };
    addresses.push(m.email);
    expect((await api.put('/users/profile', { firstName: PHISH }, m.token)).status).toBe(200);
    const newEmail = `moved-${kind}@third-party.example`;
    addresses.push(newEmail);
    expect((await api.post('/users/me/email', { password: m.password, newEmail }, m.token)).status).toBe(200);
    await settled(server);
    const [mail] = received(newEmail);
    const text = mail?.raw.toString('utf8') ?? '';
    expect(text).toContain('Hi friend! Claim your prize at,');
    expect(text).not.toMatch(/phish|https?:\/\/(?!127\.0\.0\.1)/);
  });

  it(`fifteen reset requests for one address: fifteen identical answers, at most ${PER_RECIPIENT} mails`, async () => {
    const m = await registerMember(api);
    addresses.push(m.email);
    const answers = [];
    for (let i = 0; i < 15; i++) answers.push(await api.post('/auth/reset-password', { email: m.email }));
    expect(answers[0]?.status).toBe(200);
    expect(new Set(answers.map((a) => JSON.stringify([a.status, a.body]))).size).toBe(1);
    await settled(server);
    const mails = received(m.email).map((r) => r.raw.toString('utf8'));
    // The registration's two mails and three reset links: the limit, for every mail to the address.
    expect(mails).toHaveLength(PER_RECIPIENT);
    expect(mails.filter((t) => t.includes('/auth/forgot-password?token='))).toHaveLength(PER_RECIPIENT - 2);
    // An hour later the holder can ask again.
    server.clock.advance(60 * 60 * 1000 + 1000);
    expect((await api.post('/auth/reset-password', { email: m.email })).body).toEqual(answers[0]?.body);
    await settled(server);
    expect(received(m.email)).toHaveLength(PER_RECIPIENT + 1);
  });

  it('a registration with a used address answers like a new one, and the holder is told (within the limit)', async () => {
    const holder = await registerMember(api);
    addresses.push(holder.email);
    const countUsers = async () => Number((await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users'))?.n);
    const register = (payload: Record<string, unknown>) => cpuMs(() => api.post('/auth/register', payload));
    // Interleaved: a fresh address, a used one, and one refused before any hashing (a password too
    // short), in turn, so a slow spell of the machine falls on all three alike.
    const fresh = [];
    const used = [];
    const unhashed = [];
    for (let i = 0; i < 9; i++) {
      const p = registrationPayload();
      addresses.push(p.email);
      fresh.push(await register(p));
      used.push(await register(registrationPayload({ email: holder.email.toUpperCase() })));
      unhashed.push(await register(registrationPayload({ password: 'short' })));
    }
    expect(unhashed.map(({ res }) => res.status)).toEqual(unhashed.map(() => 400));
    const before = await countUsers();
    const again = await register(registrationPayload({ email: holder.email }));
    expect(await countUsers()).toBe(before);
    for (const { res } of [...used, again]) {
      expect(res.status).toBe(201);
      expect(shape(res.body)).toEqual(shape(fresh[0]?.res.body));
      expect(res.body.data.message).toBe(fresh[0]?.res.body.data.message);
      expect(res.body.data.user).toMatchObject({ status: 'pending', approved: false, emailVerified: false });
      expect(res.body.data.user.id).not.toBe(holder.id);
    }
    // The same work (the password is hashed either way): a used address is not answered at once.
    // In CPU time, not wall time (cpuMs); the margin is wide: a used address costs at least a third
    // of a fresh one, where a request that hashes nothing costs under a third (so the comparison
    // can tell; argon2id at 19 MiB is most of a registration's work).
    const work = (xs: { ms: number }[]) => median(xs.map((x) => x.ms));
    expect(work(used)).toBeGreaterThan(work(fresh) / 3);
    expect(work(unhashed)).toBeLessThan(work(fresh) / 3);
    await settled(server);
    const notices = received(holder.email).filter((r) => r.raw.toString('utf8').includes('someone tried to register'));
    expect(notices.length).toBe(PER_RECIPIENT - 2);
    const text = notices[0]?.raw.toString('utf8') ?? '';
    expect(text).toContain('/auth/forgot-password');
    expect(text).toContain('No new account was created.');
    expect(received(holder.email)).toHaveLength(PER_RECIPIENT);
  });

  it('the log names outbox keys, never addresses: sends, and a send the SMTP server refused', async () => {
    const email = `refused-${kind}@example.test`;
    addresses.push(email);
    smtp.refuseOnce(email);
    await registerMember(api, { email });
    await server.subscribers.drain();
    const failed = (await until(
      () => server.ctx.db.get<OutboxRow>('SELECT * FROM mail_outbox WHERE to_address = ? AND last_error IS NOT NULL', [email]),
      'a refused delivery',
    )) as OutboxRow;
    server.clock.advance(31_000);
    await settled(server);
    const lines = log.lines.join('');
    const warning = log.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'mail not sent; will retry' && l.key === failed.key);
    expect(warning?.err?.message).toMatch(/<address>.*Recipient address rejected/);
    for (const address of addresses) expect(lines.toLowerCase()).not.toContain(address.toLowerCase());
    expect(lines).not.toMatch(/[\w.+-]+@(example\.test|third-party\.example)/i);
  });
});

describe('the outbox transport (production, MAIL_TRANSPORT=outbox)', () => {
  let server: TestServer;
  const log = capturedLog();

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { NODE_ENV: 'production', MAIL_TRANSPORT: 'outbox' }, logger: log.logger });
  });
  afterAll(async () => server?.close());

  it('writes each mail readable by the server user only (file 0600, folder 0700), and logs its key', async () => {
    const m = await registerMember(apiClient(server.url));
    await settled(server);
    const dir = path.join(server.ctx.env.DATA_DIR, 'outbox');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(2);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    const written = log.lines.map((l) => JSON.parse(l)).filter((l) => l.msg?.startsWith('mail written to the outbox'));
    expect(written.map((l) => path.basename(l.file)).sort()).toEqual(files.sort());
    expect(written.every((l) => typeof l.key === 'string' && !('to' in l))).toBe(true);
    expect(log.lines.join('')).not.toContain(m.email);
  });
});
