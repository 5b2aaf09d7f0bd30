/** Registration, login, tokens, profile, approval status, restart and rebuild over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { rebuildProjections } from '../eventstore/projections.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { adminLogin, login, registerMember, registrationPayload } from './identity.testkit.js';

forEachStore('identity', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind);
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  const countUsers = async () => Number((await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users'))?.n);

  describe('registration', () => {
    it('registers a pending member with the User fields', async () => {
      const payload = registrationPayload({ email: 'Reg.One@Example.test' });
      const res = await api.post('/auth/register', payload);
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.data.user).toMatchObject({
        email: 'Reg.One@Example.test',
        firstName: 'Mia',
        lastName: 'Member',
        role: 'member',
        status: 'pending',
        approved: false,
        membershipStatus: 'inactive',
        subscriptionStatus: null,
        geoLocation: null,
      });
      expect(res.body.data.user.createdAt).toBe(server.clock.now().toISOString());
      expect(res.body.data.user.registrationDate).toBe(res.body.data.user.createdAt);
      expect(JSON.stringify(res.body)).not.toContain('password');
    });

    it('answers each rule with the spec message, in spec order, writing nothing', async () => {
      const before = await countUsers();
      const cases: [Record<string, unknown>, number, string][] = [
        [{ firstName: undefined, password: 'short' }, 400, 'All fields are required'],
        [{ lastName: '' }, 400, 'All fields are required'],
        [{ email: null }, 400, 'All fields are required'],
        [{ password: 'short', dateOfBirth: undefined }, 400, 'Password must be at least 8 characters long'],
        [{ dateOfBirth: undefined, agreeToTerms: false }, 400, 'Date of birth is required for age verification'],
        [{ dateOfBirth: '2015-01-01' }, 400, 'You must be at least 18 years old to register'],
        [{ agreeToTerms: false }, 400, 'You must agree to the Terms of Service'],
        [{ agreeToTerms: undefined }, 400, 'You must agree to the Terms of Service'],
        [{ email: 'not-an-email' }, 400, 'email: Invalid email address'],
        [{ dateOfBirth: '1990-13-45' }, 400, 'dateOfBirth: must be a real date in the form YYYY-MM-DD'],
        // Date.UTC would roll 31 February over into 3 March; the shared rule refuses it (as the web form does).
        [{ dateOfBirth: '1990-02-31' }, 400, 'dateOfBirth: must be a real date in the form YYYY-MM-DD'],
      ];
      for (const [overrides, status, error] of cases) {
        const res = await api.post('/auth/register', registrationPayload(overrides));
        expect({ overrides, status: res.status, error: res.body.error }).toEqual({ overrides, status, error });
        expect(res.body.success).toBe(false);
      }
      expect(await countUsers()).toBe(before);
    });

    it('names the field on wrong types and over-long strings', async () => {
      const wrong = await api.post('/auth/register', registrationPayload({ email: 123 }));
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('email: must be a string');
      const terms = await api.post('/auth/register', registrationPayload({ agreeToTerms: 'yes' }));
      expect(terms.body.error).toBe('agreeToTerms: must be true or false');
      const long = await api.post('/auth/register', registrationPayload({ firstName: 'x'.repeat(101) }));
      expect(long.status).toBe(400);
      expect(long.body.error).toBe('firstName: must be at most 100 characters');
      const longMail = await api.post('/auth/register', registrationPayload({ email: `${'a'.repeat(250)}@example.test` }));
      expect(longMail.body.error).toMatch(/^email: must be at most 254/);
      const notJson = await api.call('POST', '/auth/register', { raw: '{nope' });
      expect(notJson.status).toBe(400);
      const array = await api.call('POST', '/auth/register', { raw: '[]' });
      expect(array.status).toBe(400);
    });

    it('answers a used e-mail (in another letter case) like a new registration, creating nothing, and mails the holder', async () => {
      const first = await registerMember(api, { email: 'dup@example.test' });
      const before = await countUsers();
      const res = await api.post('/auth/register', registrationPayload({ email: 'DUP@Example.TEST' }));
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        user: expect.objectContaining({ email: 'DUP@Example.TEST', status: 'pending', approved: false }),
        message: 'Registration received. Your account is pending approval.',
      });
      expect(res.body.data.user.id).not.toBe(first.id);
      expect(await countUsers()).toBe(before);
      expect((await api.post('/auth/login', { email: 'dup@example.test', password: first.password })).status).toBe(200);
      const notice = (await mailsTo(server, 'dup@example.test')).filter((m) => m.key.startsWith('registration-attempt:'));
      expect(notice.map((m) => m.subject)).toEqual([`${server.site.siteName}: someone tried to register with your e-mail address`]);
    });
  });

  describe('login and tokens', () => {
    it('logs in a pending member with approved false, and gives the same error for wrong e-mail or password', async () => {
      const m = await registerMember(api);
      const ok = await api.post('/auth/login', { email: m.email.toUpperCase(), password: m.password });
      expect(ok.status).toBe(200);
      expect(ok.body.data.token).toEqual(expect.any(String));
      expect(ok.body.data.user).toMatchObject({ id: m.id, approved: false, status: 'pending', role: 'member' });
      const wrongPassword = await api.post('/auth/login', { email: m.email, password: 'wrong-password' });
      const wrongEmail = await api.post('/auth/login', { email: 'nobody@example.test', password: m.password });
      expect(wrongPassword.status).toBe(401);
      expect(wrongEmail.status).toBe(401);
      expect(wrongPassword.body.error).toBe('Invalid email or password');
      expect(wrongEmail.body.error).toBe(wrongPassword.body.error);
    });

    it('validates the login payload', async () => {
      expect((await api.post('/auth/login', { password: 'x' })).body.error).toBe('email: is required');
      expect((await api.post('/auth/login', { email: 'bad', password: 'x' })).body.error).toBe('email: Invalid email address');
      expect((await api.post('/auth/login', { email: 'a@b.test', password: '' })).body.error).toBe('password: is required');
      expect((await api.post('/auth/login', { email: 'a@b.test', password: 5 })).status).toBe(400);
    });

    it('rejects a missing, tampered or expired access token with 401', async () => {
      const m = await registerMember(api);
      const { token } = await login(api, m.email, m.password);
      expect((await api.get('/users/approval-status')).status).toBe(401);
      expect((await api.get('/users/approval-status', token)).status).toBe(200);
      const [h, p, s] = token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
      expect((await api.get('/users/approval-status', `${h}.${forged}.${s}`)).status).toBe(401);
      // A changed first character of the signature: always other bytes (a changed last character may
      // decode to the same bytes, as base64url ignores its spare low bits: "…xw" → "…xx" is no change).
      expect((await api.get('/users/approval-status', `${h}.${p}.${s[0] === 'x' ? 'y' : 'x'}${s.slice(1)}`)).status).toBe(401);
      expect((await api.call('GET', '/users/approval-status', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
      server.clock.advance((server.ctx.env.ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
      const expired = await api.get('/users/approval-status', token);
      expect(expired.status).toBe(401);
      expect(expired.body.error).toBe('Your session has expired. Please log in again.');
    });
  });

  describe('users', () => {
    it('reports approval status, which turns true after an admin approves', async () => {
      const m = await registerMember(api);
      const { token } = await login(api, m.email, m.password);
      expect((await api.get('/users/approval-status', token)).body.data).toEqual({ approved: false, status: 'pending' });
      const admin = await adminLogin(api);
      expect((await api.post(`/admin/users/${m.id}/approve`, undefined, admin.token)).status).toBe(200);
      expect((await api.get('/users/approval-status', token)).body.data).toEqual({ approved: true, status: 'approved' });
      const again = await login(api, m.email, m.password);
      expect(again.user).toMatchObject({ approved: true, status: 'approved' });
    });

    it('reads and edits the profile (first and last name only)', async () => {
      const m = await registerMember(api);
      const { token } = await login(api, m.email, m.password);
      const profile = await api.get('/users/profile', token);
      expect(profile.body.data.user).toMatchObject({ id: m.id, email: m.email, firstName: 'Mia' });
      const put = await api.put('/users/profile', { firstName: ' Maya ', lastName: 'Stone' }, token);
      expect(put.status).toBe(200);
      expect(put.body.data.user).toMatchObject({ firstName: 'Maya', lastName: 'Stone', email: m.email });
      const sneaky = await api.put('/users/profile', { firstName: 'X', email: 'evil@example.test', role: 'admin' }, token);
      expect(sneaky.status).toBe(400);
      expect(sneaky.body.error).toContain('Only firstName and lastName can be changed');
      expect((await api.put('/users/profile', { firstName: '' }, token)).body.error).toBe('firstName: must not be empty');
      expect((await api.put('/users/profile', { lastName: 'y'.repeat(101) }, token)).status).toBe(400);
      expect((await api.put('/users/profile', { lastName: 7 }, token)).body.error).toBe('lastName: must be a string');
      expect((await api.put('/users/profile', { firstName: 'A' })).status).toBe(401);
      expect((await api.get('/users/profile', token)).body.data.user).toMatchObject({ firstName: 'Maya', role: 'member' });
    });
  });

  describe('rejected users', () => {
    it('sign in to a restricted session (their data rights); everything else refuses them with a clear error', async () => {
      const m = await registerMember(api);
      const admin = await adminLogin(api);
      expect((await api.post(`/admin/users/${m.id}/reject`, { reason: 'incomplete' }, admin.token)).status).toBe(200);
      const res = await api.post('/auth/login', { email: m.email, password: m.password });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ status: 'rejected', approved: false });
      const elsewhere = await api.get('/users/me/sessions', res.body.data.token);
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.body.error).toMatch(/not approved/);
    });
  });

  describe('admin bootstrap, restart and rebuild', () => {
    it('the configured admin exists, approved, and logs in as admin', async () => {
      const admin = await adminLogin(api);
      expect(admin.user).toMatchObject({ email: TEST_ADMIN.email, role: 'admin', approved: true, status: 'approved' });
    });

    it('rebuilding the projections gives identical users rows and counters', async () => {
      const db = server.ctx.db;
      const counts = async (sql: string) =>
        (await db.all<{ key: string; n: number | string }>(sql)).map((r) => ({ key: r.key, n: Number(r.n) }));
      const snapshot = async () => ({
        users: await db.all('SELECT * FROM users ORDER BY id'),
        counts: await counts('SELECT key, n FROM users_counts WHERE n <> 0 ORDER BY key'),
      });
      // The dashboard's counters are what counting the rows gives.
      const counted = () => counts(`SELECT status || ':' || role AS key, COUNT(*) AS n FROM users GROUP BY status, role ORDER BY key`);
      const before = await snapshot();
      expect(before.users.length).toBeGreaterThan(3);
      expect(before.counts).toEqual(await counted());
      expect(before.counts.map((c) => c.key)).toEqual(expect.arrayContaining(['approved:admin', 'pending:member', 'rejected:member']));
      await rebuildProjections(db, server.ctx.store, server.ctx.projections);
      expect(await snapshot()).toEqual(before);
    });

    it('a restart keeps the data and appends no bootstrap events; a changed ADMIN_PASSWORD is applied', async () => {
      const m = await registerMember(api);
      const head = await server.ctx.store.headPosition();
      server = await server.restart();
      api = apiClient(server.url);
      expect(await server.ctx.store.headPosition()).toBe(head);
      expect((await login(api, m.email, m.password)).user.id).toBe(m.id);
      server = await server.restart({ ADMIN_PASSWORD: 'a-brand-new-admin-pass' });
      api = apiClient(server.url);
      expect(await server.ctx.store.headPosition()).toBe(head + 1);
      expect((await api.post('/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password })).status).toBe(401);
      expect((await login(api, TEST_ADMIN.email, 'a-brand-new-admin-pass')).user.role).toBe('admin');
      server = await server.restart({ ADMIN_PASSWORD: TEST_ADMIN.password });
      api = apiClient(server.url);
    });
  });
});
