/** Password reset (request, single-use expiring confirm) and e-mail verification over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { login, registerMember } from './identity.testkit.js';

forEachStore('identity passwords and verification', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { PUBLIC_URL: 'https://members.example.test' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  async function resetLink(email: string): Promise<string> {
    const mails = (await mailsTo(server, email)).filter((m) => m.key.startsWith('password-reset:'));
    const match = /https:\/\/members\.example\.test\/auth\/forgot-password\?token=(\S+)/.exec(mails.at(-1)?.text_body ?? '');
    if (!match) throw new Error('no reset link mailed');
    return decodeURIComponent(match[1] as string);
  }

  describe('reset password', () => {
    it('answers the same whether or not the e-mail exists, and mails a link only to an account', async () => {
      const m = await registerMember(api);
      const known = await api.post('/auth/reset-password', { email: m.email });
      const unknown = await api.post('/auth/reset-password', { email: 'nobody@example.test' });
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual(known.body);
      expect(await resetLink(m.email)).toBeTruthy();
      expect(await mailsTo(server, 'nobody@example.test')).toEqual([]);
      expect((await api.post('/auth/reset-password', { email: 'bad' })).status).toBe(400);
      expect((await api.post('/auth/reset-password', {})).body.error).toBe('email: is required');
    });

    it('sets the new password once with the mailed token', async () => {
      const m = await registerMember(api);
      await api.post('/auth/reset-password', { email: m.email });
      const token = await resetLink(m.email);
      const short = await api.post('/auth/reset-password/confirm', { token, password: 'short' });
      expect(short.body.error).toBe('password: Password must be at least 8 characters long');
      const res = await api.post('/auth/reset-password/confirm', { token, password: 'a-new-password-1' });
      expect(res.status).toBe(200);
      expect((await api.post('/auth/login', { email: m.email, password: m.password })).status).toBe(401);
      expect((await login(api, m.email, 'a-new-password-1')).user.id).toBe(m.id);
      const again = await api.post('/auth/reset-password/confirm', { token, password: 'another-password' });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('This password reset link is invalid or has already been used');
    });

    it('refuses an expired or made-up token', async () => {
      const m = await registerMember(api);
      await api.post('/auth/reset-password', { email: m.email });
      const token = await resetLink(m.email);
      server.clock.advance(61 * 60 * 1000);
      const expired = await api.post('/auth/reset-password/confirm', { token, password: 'a-new-password-1' });
      expect(expired.status).toBe(400);
      expect(expired.body.error).toBe('This password reset link has expired');
      expect((await api.post('/auth/reset-password/confirm', { token: 'made-up', password: 'a-new-password-1' })).status).toBe(400);
      expect((await api.post('/auth/reset-password/confirm', { password: 'a-new-password-1' })).body.error).toBe('token: is required');
    });
  });

  describe('verify e-mail', () => {
    it('verifies with the link mailed at registration; a wrong token is a 400', async () => {
      const m = await registerMember(api);
      const mail = (await mailsTo(server, m.email)).find((r) => r.key.startsWith('verify-email:'));
      const match = /https:\/\/members\.example\.test\/auth\/verify-email\?token=(\S+)/.exec(mail?.text_body ?? '');
      const token = decodeURIComponent(match?.[1] ?? '');
      expect(token).toBeTruthy();
      expect((await api.post('/auth/verify-email', { token: `${token}x` })).status).toBe(400);
      expect((await api.post('/auth/verify-email', { token: 'garbage' })).body.error).toBe('This verification link is invalid');
      expect((await api.post('/auth/verify-email', {})).status).toBe(400);
      const res = await api.post('/auth/verify-email', { token });
      expect(res.status).toBe(200);
      expect((await api.post('/auth/verify-email', { token })).status).toBe(200);
      const { user } = await login(api, m.email, m.password);
      expect(user.emailVerified).toBe(true);
    });
  });
});
