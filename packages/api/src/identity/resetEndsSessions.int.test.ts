/**
 * ASVS 2.5.6 and 3.3.3 on the production configuration (NODE_ENV=production, an https PUBLIC_URL,
 * mail over SMTP to a real SMTP server): a member and the admin, each with a TOTP second factor,
 * are signed in on two devices; a password reset is asked for, its link read from the mail the SMTP
 * server received and followed. Then every access token and refresh cookie of those devices is
 * refused (401 `auth.session_expired`), and the next sign-in with the new password still asks for
 * the second factor: the enrolled secret was kept, so its code completes it and nothing else does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { startSmtpServer, strictParse } from '../mail/smtpServer.testkit.js';
import { cookieHeader, cookiesOf, enrolSecondFactor, login, registerMember } from './identity.testkit.js';
import { totpCode } from './totp.js';
import { wrongTotpCode } from './totp.testkit.js';

const PUBLIC_URL = 'https://members.example.test';
const SESSION_EXPIRED = { success: false, error: 'Your session has expired. Please log in again.', code: 'auth.session_expired' };

type Api = ReturnType<typeof apiClient>;
interface Account {
  label: string;
  email: string;
  password: string;
  secret: string;
  /** A route this account may read while signed in (the admin's own). */
  probe: string;
}
interface Device {
  token: string;
  cookies: Record<string, string>;
}

forEachStore('a password reset ends every session and keeps the second factor (production)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let api: Api;
  const accounts: Account[] = [];

  const refresh = (cookies: Record<string, string>) =>
    api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' } });

  /** Password, then the current TOTP code; the next sign-in gets the next time step (a code works once). */
  async function signIn(account: Account, password = account.password): Promise<Device> {
    const challenge = await api.post('/auth/login', { email: account.email, password });
    expect(challenge.status).toBe(200);
    expect(challenge.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    const verified = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(account.secret, server.clock.now()),
    });
    expect(verified.status).toBe(200);
    server.clock.advance(30_000);
    return { token: verified.body.data.token as string, cookies: cookiesOf(verified.headers) };
  }

  /** The reset token of the newest reset mail the SMTP server received for `email`, as a mail client reads it. */
  async function mailedResetToken(email: string, after: number): Promise<string> {
    for (;;) {
      // Other mails to the address (the registration's) may still be on their way: the reset mail is the one so titled.
      const mail = smtp.received
        .slice(after)
        .find((m) => m.to.includes(email.toLowerCase()) && /^Subject: .*reset your password\r?$/m.test(m.raw.toString('utf8')));
      if (mail) {
        const parsed = strictParse(mail.raw);
        expect(parsed.subject).toMatch(/: reset your password$/);
        const link = /https:\/\/members\.example\.test\/auth\/forgot-password\?token=(\S+)/.exec(parsed.text ?? '');
        if (!link) throw new Error(`the reset mail carries no link:\n${parsed.text}`);
        return decodeURIComponent(link[1] as string);
      }
      // The outbox hands mails to SMTP in the background: wait for this one to arrive (the test's timeout bounds it).
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL, SMTP_URL: smtp.url, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
    });
    api = apiClient(server.url);
    // Production holds the admin to enrolment first (REQUIRE_ADMIN_2FA is on by default).
    const first = await login(api, TEST_ADMIN.email, TEST_ADMIN.password);
    const admin = await enrolSecondFactor(api, server.clock, first.token);
    server.clock.advance(30_000);
    accounts.push({ label: 'admin', ...TEST_ADMIN, secret: admin.secret, probe: '/admin/stats' });
    const m = await registerMember(api);
    expect((await api.post(`/admin/users/${m.id}/approve`, undefined, first.token)).status).toBe(200);
    const member = await enrolSecondFactor(api, server.clock, (await login(api, m.email, m.password)).token);
    server.clock.advance(30_000);
    accounts.push({ label: 'member', email: m.email, password: m.password, secret: member.secret, probe: '/users/profile' });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  for (const label of ['member', 'admin'])
    it(`the ${label}: both devices' access and refresh tokens are refused after the reset; the next sign-in still needs the kept second factor`, async () => {
      const account = accounts.find((a) => a.label === label) as Account;
      const phone = await signIn(account);
      const laptop = await signIn(account);
      // Positive controls: both devices are signed in, and each refresh cookie works (it rotates: keep the new one).
      const accessTokens = [phone.token, laptop.token];
      for (const device of [phone, laptop]) {
        expect((await api.get(account.probe, device.token)).status).toBe(200);
        const refreshed = await refresh(device.cookies);
        expect(refreshed.status).toBe(200);
        accessTokens.push(refreshed.body.data.token as string);
        device.cookies = { ...device.cookies, ...cookiesOf(refreshed.headers) };
      }

      // The reset, as its holder does it: ask, open the mail, follow the link with a new password.
      const before = smtp.received.length;
      expect((await api.post('/auth/reset-password', { email: account.email })).status).toBe(200);
      const token = await mailedResetToken(account.email, before);
      const newPassword = `${label}-after-the-reset-1`;
      const confirmed = await api.post('/auth/reset-password/confirm', { token, password: newPassword });
      expect(confirmed.status).toBe(200);

      // Every session has ended: each access token, and each device's refresh cookie.
      for (const accessToken of accessTokens) {
        const r = await api.get(account.probe, accessToken);
        expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: SESSION_EXPIRED });
      }
      for (const device of [phone, laptop]) {
        const r = await refresh(device.cookies);
        expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: SESSION_EXPIRED });
      }

      // The old password is gone; the new one alone gives no session: a challenge, no cookie.
      expect((await api.post('/auth/login', { email: account.email, password: account.password })).status).toBe(401);
      const challenge = await api.post('/auth/login', { email: account.email, password: newPassword });
      expect(challenge.status).toBe(200);
      expect(challenge.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
      expect(challenge.headers.getSetCookie()).toEqual([]);
      const { mfaToken } = challenge.body.data;
      expect((await api.get(account.probe, mfaToken)).status).toBe(401);
      const wrong = await api.post('/auth/mfa/verify', { mfaToken, code: wrongTotpCode(account.secret, server.clock.now()) });
      expect(wrong.status).toBe(401);
      // The secret enrolled before the reset still signs in: the factor was kept, not reset with the password.
      const verified = await api.post('/auth/mfa/verify', { mfaToken, code: totpCode(account.secret, server.clock.now()) });
      expect(verified.status).toBe(200);
      server.clock.advance(30_000);
      expect((await api.get(account.probe, verified.body.data.token)).status).toBe(200);
      expect((await api.get('/auth/mfa', verified.body.data.token)).body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
      account.password = newPassword;
    }, 120_000);
});
