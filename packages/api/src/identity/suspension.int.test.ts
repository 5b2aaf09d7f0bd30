/**
 * Suspension and rejected members' data rights (issue 27, finding 9), as an attacker would try them,
 * on the production configuration over real HTTP, per store:
 *  - a suspended member's existing access token and refresh cookie stop at once (401), signing in
 *    again is refused with a clear message, the access decision refuses their videos and paying is
 *    refused; after reinstatement they sign in again;
 *  - a member cannot suspend or reinstate anyone, and nothing is appended when they try;
 *  - a rejected member signs in to a restricted session: they export their data and erase their
 *    account, read their profile, reset their password and sign out, and every other route keeps
 *    refusing them;
 *  - rejecting an approved member points the admin to suspension.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { signAccessToken } from '../http/auth.js';
import { makeMp4 } from '../media/media.testkit.js';
import { adminLogin, approvedMember, cookieHeader, login, registerMember } from './identity.testkit.js';

type Api = ReturnType<typeof apiClient>;
const SUSPENDED = 'Your account has been suspended. Please contact support if you believe this is a mistake.';

forEachStore('suspension and rejected members’ data rights', (kind) => {
  let server: TestServer;
  let api: Api;
  let admin: string;
  let freeVideo: string;
  const fixtures = tmpDir('members-suspension-');
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example.test', REQUIRE_ADMIN_2FA: 'false' },
    });
    api = apiClient(server.url);
    const signedIn = await adminLogin(api);
    admin = signedIn.token;
    const copy = path.join(fixtures, `${kind}-free.mp4`);
    fs.copyFileSync(await makeMp4(fixtures, 2), copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title: 'free video', accessLevel: 'free', actorId: signedIn.user.id });
    if (!r.ok) throw new Error(r.error.message);
    freeVideo = r.videoId;
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(fixtures, { recursive: true, force: true });
  });

  const eventsOf = async (id: string) => (await server.ctx.store.readStream(`user-${id}`)).map((e) => e.type);
  const refresh = (cookies: Record<string, string>) =>
    api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' } });

  it("a suspended member's token and refresh cookie stop at once, sign-in is refused with a clear message, videos and paying too; reinstated, they sign in again", async () => {
    const m = await approvedMember(api);
    expect((await api.get('/users/profile', m.token)).status).toBe(200);
    expect((await api.get(`/videos/${freeVideo}/stream`, m.token)).status).toBe(200);
    const stats = (await api.get('/admin/stats', admin)).body.data;

    const suspended = await api.post(`/admin/users/${m.id}/suspend`, { reason: 'Chargeback fraud' }, admin);
    expect(suspended).toMatchObject({ status: 200, body: { success: true, data: { id: m.id, status: 'suspended' } } });
    expect((await eventsOf(m.id)).at(-1)).toBe('UserSuspended');

    // The attacker holds the member's access token and refresh cookie from before.
    expect(await api.get('/users/profile', m.token)).toMatchObject({ status: 401, body: { success: false } });
    expect((await api.get(`/videos/${freeVideo}/stream`, m.token)).status).toBe(401);
    expect((await refresh(m.cookies)).status).toBe(401);
    const again = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(again).toMatchObject({ status: 403, body: { success: false, error: SUSPENDED } });
    expect(again.headers.getSetCookie()).toEqual([]);
    // A token with no session behind it (signed elsewhere) meets the guards and the access decision.
    const bare = await signAccessToken(server.ctx, { id: m.id, role: 'member' });
    expect(await api.get('/users/profile', bare)).toMatchObject({ status: 401, body: { error: SUSPENDED } });
    expect(await api.get(`/videos/${freeVideo}/stream`, bare)).toMatchObject({ status: 403, body: { error: SUSPENDED } });
    const paying = await api.post('/payments/create-subscription-intent', { planType: 'monthly' }, bare);
    expect(paying).toMatchObject({ status: 401, body: { error: SUSPENDED } });
    // Not counted as an active member while suspended.
    expect((await api.get('/admin/stats', admin)).body.data.activeMembers).toBe(stats.activeMembers - 1);
    const found = (await api.get(`/admin/users?q=${encodeURIComponent(m.email)}`, admin)).body.data.users;
    expect(found).toEqual([expect.objectContaining({ id: m.id, status: 'suspended' })]);

    expect(await api.post(`/admin/users/${m.id}/reinstate`, undefined, admin)).toMatchObject({
      status: 200,
      body: { data: { id: m.id, status: 'approved' } },
    });
    const back = await login(api, m.email, m.password);
    expect(back.user).toMatchObject({ status: 'approved', approved: true });
    expect((await api.get(`/videos/${freeVideo}/stream`, back.token)).status).toBe(200);
    expect((await api.get('/admin/stats', admin)).body.data.activeMembers).toBe(stats.activeMembers);
  });

  it('a member cannot suspend or reinstate anyone (nothing appended); the rules answer 400/404/409', async () => {
    const attacker = await approvedMember(api);
    const victim = await approvedMember(api);
    const before = await server.ctx.store.readStream(`user-${victim.id}`);
    expect((await api.post(`/admin/users/${victim.id}/suspend`, { reason: 'mine now' }, attacker.token)).status).toBe(403);
    expect((await api.post(`/admin/users/${attacker.id}/reinstate`, undefined, attacker.token)).status).toBe(403);
    expect((await api.post(`/admin/users/${victim.id}/suspend`, { reason: 'x' })).status).toBe(401);
    expect(await server.ctx.store.readStream(`user-${victim.id}`)).toHaveLength(before.length);

    expect(await api.post(`/admin/users/${victim.id}/suspend`, { reason: '   ' }, admin)).toMatchObject({
      status: 400,
      body: { success: false, error: expect.stringMatching(/^reason: /) },
    });
    expect((await api.post(`/admin/users/${victim.id}/suspend`, {}, admin)).status).toBe(400);
    expect((await api.post('/admin/users/no-such-user/suspend', { reason: 'x' }, admin)).status).toBe(404);
    expect(await api.post(`/admin/users/${victim.id}/reinstate`, undefined, admin)).toMatchObject({
      status: 409,
      body: { error: 'User is not suspended' },
    });
    const pending = await registerMember(api);
    expect(await api.post(`/admin/users/${pending.id}/suspend`, { reason: 'x' }, admin)).toMatchObject({
      status: 409,
      body: { error: 'Only an approved member can be suspended (this account is pending)' },
    });
    const adminId = (await adminLogin(api)).user.id;
    expect((await api.post(`/admin/users/${adminId}/suspend`, { reason: 'x' }, admin)).status).toBe(409);
    expect((await api.post(`/admin/users/${victim.id}/suspend`, { reason: 'Abuse' }, admin)).status).toBe(200);
    expect(await api.post(`/admin/users/${victim.id}/suspend`, { reason: 'Abuse' }, admin)).toMatchObject({
      status: 409,
      body: { error: 'User is already suspended' },
    });
    // Rejecting an approved member points to suspension.
    expect(await api.post(`/admin/users/${attacker.id}/reject`, { reason: 'x' }, admin)).toMatchObject({
      status: 409,
      body: { error: 'User is already approved and cannot be rejected; suspend the account instead' },
    });
  });

  it('a rejected member signs in to their data rights only: export, profile, password reset, erasure; everything else refuses them', async () => {
    const m = await registerMember(api);
    expect((await api.post(`/admin/users/${m.id}/reject`, { reason: 'Not eligible' }, admin)).status).toBe(200);

    const session = await login(api, m.email, m.password);
    expect(session.user).toMatchObject({ id: m.id, status: 'rejected', approved: false });
    const exported = await fetch(`${server.url}/api/users/me/export`, { headers: { authorization: `Bearer ${session.token}` } });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain(m.email);
    expect(await api.get('/users/profile', session.token)).toMatchObject({ status: 200, body: { data: { user: { status: 'rejected' } } } });
    expect(await api.get('/users/approval-status', session.token)).toMatchObject({
      status: 200,
      body: { data: { approved: false, status: 'rejected' } },
    });
    // The rest of the site keeps refusing them, as before.
    expect((await api.put('/users/profile', { firstName: 'Changed' }, session.token)).status).toBe(403);
    expect((await api.get('/users/me/sessions', session.token)).status).toBe(403);
    expect((await api.post('/users/me/email', { password: m.password, newEmail: 'x@example.test' }, session.token)).status).toBe(403);
    expect((await api.post('/payments/create-subscription-intent', { planType: 'monthly' }, session.token)).status).toBe(403);
    expect((await api.get(`/videos/${freeVideo}/stream`, session.token)).status).toBe(403);
    expect((await api.get('/admin/stats', session.token)).status).toBe(403);
    expect((await refresh(session.cookies)).status).toBe(200);

    // A forgotten password can be reset (the link is mailed).
    const mails = () =>
      server.ctx.db.all<{ key: string }>(`SELECT key FROM mail_outbox WHERE key LIKE 'password-reset:%' AND subject_id = ?`, [m.id]);
    expect(await mails()).toHaveLength(0);
    expect((await api.post('/auth/reset-password', { email: m.email })).status).toBe(200);
    await server.subscribers.drain();
    expect(await mails()).toHaveLength(1);

    // And they erase the account.
    const erased = await api.call('DELETE', '/users/me', { body: { password: m.password, confirmation: 'DELETE' }, token: session.token });
    expect(erased).toMatchObject({ status: 200, body: { success: true, data: { erased: true } } });
    expect((await eventsOf(m.id)).at(-1)).toBe('MemberErased');
    expect((await api.post('/auth/login', { email: m.email, password: m.password })).status).toBe(401);
  });
});
