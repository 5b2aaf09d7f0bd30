/**
 * Account settings over real HTTP on both stores: password change (other sessions end, the notice is
 * queued in the outbox), e-mail change (link to the new address, old address told, taken addresses
 * refused), and the session list with revoking one or all others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { approvedMember, cookieHeader, login, registerMember } from './identity.testkit.js';

forEachStore('identity account settings', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { PUBLIC_URL: 'https://members.example.test' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  const refresh = (cookies: Record<string, string>) =>
    api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' } });

  /** Logs in with a given browser name, as the session list shows it. */
  async function loginAs(email: string, password: string, userAgent: string) {
    const res = await api.call('POST', '/auth/login', { body: { email, password }, headers: { 'user-agent': userAgent } });
    expect(res.status).toBe(200);
    const cookies: Record<string, string> = {};
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [k, ...v] = (pair ?? '').split('=');
      cookies[(k ?? '').trim()] = decodeURIComponent(v.join('='));
    }
    return { token: res.body.data.token as string, cookies };
  }

  describe('change password', () => {
    it('needs the current password, ends every other session (refresh and access tokens), keeps this one and mails a notice', async () => {
      const m = await registerMember(api);
      const here = await loginAs(m.email, m.password, 'Here Browser');
      const there = await loginAs(m.email, m.password, 'There Browser');
      const head = await server.ctx.store.headPosition();

      const wrong = await api.post(
        '/users/me/password',
        { currentPassword: 'not-my-password', newPassword: 'new-password-123' },
        here.token,
      );
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ success: false, error: 'Your current password is not correct', code: 'auth.wrong_password' });
      const same = await api.post('/users/me/password', { currentPassword: m.password, newPassword: m.password }, here.token);
      expect(same.status).toBe(400);
      const short = await api.post('/users/me/password', { currentPassword: m.password, newPassword: 'short' }, here.token);
      expect(short.body.error).toBe('newPassword: Password must be at least 8 characters long');
      expect(await server.ctx.store.headPosition()).toBe(head);
      expect((await api.post('/users/me/password', { currentPassword: m.password, newPassword: 'x'.repeat(20) })).status).toBe(401);

      const res = await api.post('/users/me/password', { currentPassword: m.password, newPassword: 'new-password-123' }, here.token);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        message: 'Your password has been changed. Every other device has been signed out.',
        otherSessionsEnded: 1,
      });

      // The other device is signed out at once: its access token and its refresh token both fail.
      expect((await api.get('/users/profile', there.token)).status).toBe(401);
      expect((await refresh(there.cookies)).status).toBe(401);
      // This device stays signed in.
      expect((await api.get('/users/profile', here.token)).status).toBe(200);
      expect((await refresh(here.cookies)).status).toBe(200);
      expect((await api.post('/auth/login', { email: m.email, password: m.password })).status).toBe(401);
      await login(api, m.email, 'new-password-123');

      const notice = (await mailsTo(server, m.email)).filter((r) => r.key.startsWith('password-changed:'));
      expect(notice).toHaveLength(1);
      expect(notice[0]?.subject).toMatch(/your password was changed/);
      expect(notice[0]?.text_body).toContain('https://members.example.test/auth/forgot-password');
      expect(notice[0]?.text_body).not.toContain('new-password-123');
    });
  });

  describe('change e-mail', () => {
    async function changeLink(email: string): Promise<string> {
      const mail = (await mailsTo(server, email)).filter((r) => r.key.startsWith('email-change:')).at(-1);
      const match = /https:\/\/members\.example\.test\/auth\/confirm-email\?token=(\S+)/.exec(mail?.text_body ?? '');
      if (!match) throw new Error(`no e-mail change link mailed to ${email}`);
      return decodeURIComponent(match[1] as string);
    }

    it('mails a link to the new address; the change happens only when it is followed; the old address is told', async () => {
      // Approved: a pending account may not have links mailed to other addresses (mailAbuse.int.test.ts).
      const m = await approvedMember(api);
      const { token } = m;
      const newEmail = `moved-${Date.now().toString(36)}@example.test`;

      expect((await api.post('/users/me/email', { password: 'wrong-password', newEmail }, token)).status).toBe(401);
      expect((await api.post('/users/me/email', { password: m.password, newEmail: 'not-an-address' }, token)).body.error).toBe(
        'newEmail: Invalid email address',
      );
      expect((await api.post('/users/me/email', { password: m.password, newEmail: m.email.toUpperCase() }, token)).body.error).toBe(
        'This is already your email address',
      );
      const taken = await registerMember(api);
      const conflict = await api.post('/users/me/email', { password: m.password, newEmail: taken.email }, token);
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toBe('An account with this email already exists');

      const res = await api.post('/users/me/email', { password: m.password, newEmail }, token);
      expect(res.status).toBe(200);
      expect(res.body.data.pendingEmail).toBe(newEmail);
      // Nothing changes until the link is followed.
      expect((await api.get('/users/profile', token)).body.data.user.email).toBe(m.email);
      const link = await changeLink(newEmail);

      expect((await api.post('/auth/email-change/confirm', { token: `${link}x` })).status).toBe(400);
      expect((await api.post('/auth/email-change/confirm', { token: 'garbage' })).body.error).toBe(
        'This email change link is invalid or has already been used',
      );
      const done = await api.post('/auth/email-change/confirm', { token: link });
      expect(done.status).toBe(200);
      expect(done.body.data.email).toBe(newEmail);
      const profile = (await api.get('/users/profile', token)).body.data.user;
      expect(profile).toMatchObject({ email: newEmail, emailVerified: true });
      expect((await api.post('/auth/login', { email: m.email, password: m.password })).status).toBe(401);
      await login(api, newEmail, m.password);
      expect((await api.post('/auth/email-change/confirm', { token: link })).status).toBe(400);

      const told = (await mailsTo(server, m.email)).filter((r) => r.key.startsWith('email-changed:'));
      expect(told).toHaveLength(1);
      expect(told[0]?.text_body).toContain(newEmail);
      // The old address is free for a new registration.
      await registerMember(api, { email: m.email });
    });

    it('refuses the link when the address was taken in the meantime, and after 24 hours', async () => {
      // Approved: a pending account may not have links mailed to other addresses (mailAbuse.int.test.ts).
      const m = await approvedMember(api);
      const { token } = m;
      const wanted = `wanted-${Date.now().toString(36)}@example.test`;
      expect((await api.post('/users/me/email', { password: m.password, newEmail: wanted }, token)).status).toBe(200);
      const link = await changeLink(wanted);
      await registerMember(api, { email: wanted });
      const head = await server.ctx.store.headPosition();
      const res = await api.post('/auth/email-change/confirm', { token: link });
      expect(res.status).toBe(409);
      expect(await server.ctx.store.headPosition()).toBe(head);
      expect((await api.get('/users/profile', token)).body.data.user.email).toBe(m.email);

      const later = `later-${Date.now().toString(36)}@example.test`;
      expect((await api.post('/users/me/email', { password: m.password, newEmail: later }, token)).status).toBe(200);
      const expiring = await changeLink(later);
      server.clock.advance(24 * 60 * 60 * 1000 + 1000);
      const expired = await api.post('/auth/email-change/confirm', { token: expiring });
      expect(expired.status).toBe(400);
      expect(expired.body.error).toMatch(/expired/);
    });
  });

  describe('sessions', () => {
    it('lists the active sessions with device and times, marks the current one, and revokes one or all others', async () => {
      const m = await registerMember(api);
      const phone = await loginAs(m.email, m.password, 'Mozilla/5.0 (iPhone) Phone Browser');
      server.clock.advance(60_000);
      const laptop = await loginAs(m.email, m.password, 'Mozilla/5.0 (X11; Linux) Laptop Browser');
      server.clock.advance(60_000);
      const tablet = await loginAs(m.email, m.password, 'Tablet Browser');
      const other = await registerMember(api);
      const stranger = await loginAs(other.email, other.password, 'Stranger Browser');

      const list = await api.get('/users/me/sessions', laptop.token);
      expect(list.status).toBe(200);
      const sessions = list.body.data.sessions as {
        id: string;
        userAgent: string;
        current: boolean;
        createdAt: string;
        lastUsedAt: string;
      }[];
      expect(sessions.map((s) => s.userAgent)).toEqual([
        'Tablet Browser',
        'Mozilla/5.0 (X11; Linux) Laptop Browser',
        'Mozilla/5.0 (iPhone) Phone Browser',
      ]);
      expect(sessions.filter((s) => s.current).map((s) => s.userAgent)).toEqual(['Mozilla/5.0 (X11; Linux) Laptop Browser']);
      expect(sessions[0]?.createdAt).toEqual(expect.any(String));

      // A refresh moves "last used".
      const phoneSession = sessions.find((s) => s.userAgent.includes('Phone')) as { id: string; lastUsedAt: string };
      server.clock.advance(60_000);
      const refreshed = await refresh(phone.cookies);
      expect(refreshed.status).toBe(200);
      const after = (await api.get('/users/me/sessions', laptop.token)).body.data.sessions as { id: string; lastUsedAt: string }[];
      expect(after[0]?.id).toBe(phoneSession.id);
      expect((after[0]?.lastUsedAt ?? '') > phoneSession.lastUsedAt).toBe(true);

      // Another member's session is not ours to end.
      const end = (path: string, body: unknown = { password: m.password }) => api.call('DELETE', path, { body, token: laptop.token });
      const strangerSession = ((await api.get('/users/me/sessions', stranger.token)).body.data.sessions as { id: string }[])[0];
      expect((await end(`/users/me/sessions/${strangerSession?.id}`)).status).toBe(404);
      expect((await api.get('/users/profile', stranger.token)).status).toBe(200);

      // Ending sessions asks for the password again (issue 42): none, or a wrong one, ends nothing.
      expect((await api.del(`/users/me/sessions/${phoneSession.id}`, laptop.token)).status).toBe(400);
      const wrong = await end(`/users/me/sessions/${phoneSession.id}`, { password: 'not-the-password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ success: false, code: 'auth.wrong_password' });
      expect((await end('/users/me/sessions', { password: 'not-the-password' })).status).toBe(401);
      expect((await api.get('/users/profile', refreshed.body.data.token)).status).toBe(200);

      const one = await end(`/users/me/sessions/${phoneSession.id}`);
      expect(one.status).toBe(200);
      expect((await api.get('/users/profile', refreshed.body.data.token)).status).toBe(401);
      expect((await end(`/users/me/sessions/${phoneSession.id}`)).status).toBe(404);

      const all = await end('/users/me/sessions');
      expect(all.body.data).toEqual({ revoked: 1 });
      expect((await api.get('/users/profile', tablet.token)).status).toBe(401);
      expect((await refresh(tablet.cookies)).status).toBe(401);
      const left = (await api.get('/users/me/sessions', laptop.token)).body.data.sessions as { current: boolean }[];
      expect(left).toEqual([expect.objectContaining({ current: true })]);
      expect((await api.get('/users/me/sessions')).status).toBe(401);
    });
  });
});
