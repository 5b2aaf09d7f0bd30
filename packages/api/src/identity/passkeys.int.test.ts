/**
 * Passkeys over real HTTP on the production configuration, both stores (issue 42 item 3), with a
 * software authenticator whose answers are signed for real (passkey.testkit.ts): register, list,
 * sign in, remove; an admin whose second factor is a passkey (REQUIRE_ADMIN_2FA) signs in with it and
 * needs no TOTP, and not with the password alone; and what an attacker would try: a phishing origin,
 * an answer replayed, a foreign key, no user verification, another account's user handle or ceremony,
 * a counter going back, someone else's passkey, a suspended or erased account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { adminLogin, approvedMember, cookiesOf } from './identity.testkit.js';
import { foreignKey, SoftAuthenticator } from './passkey.testkit.js';

forEachStore('passkeys (production)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  const origin = () => new URL(server.ctx.env.PUBLIC_URL as string).origin;

  async function register(token: string, key: SoftAuthenticator, name = 'Laptop', bend?: Parameters<SoftAuthenticator['create']>[1]) {
    const started = await api.post('/auth/passkeys/registration', undefined, token);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { ceremonyId, options } = started.body.data;
    const credential = key.create(options, bend);
    return { ceremonyId, credential, res: await api.post('/auth/passkeys', { ceremonyId, name, credential }, token) };
  }

  async function signIn(key: SoftAuthenticator, id?: string, bend?: Parameters<SoftAuthenticator['get']>[2]) {
    const started = await api.post('/auth/passkeys/login/options');
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { ceremonyId, options } = started.body.data;
    const credential = key.get(options, id, bend);
    return { ceremonyId, credential, res: await api.post('/auth/passkeys/login', { ceremonyId, credential }) };
  }

  it('a member registers passkeys, lists them by name, signs in with one (no password) and removes one', async () => {
    const m = await approvedMember(api);
    const phone = new SoftAuthenticator(origin());
    const laptop = new SoftAuthenticator(origin());
    const first = await register(m.token, phone, '  Phone  ');
    expect(first.res.status, JSON.stringify(first.res.body)).toBe(201);
    expect(first.res.body.data.passkey).toMatchObject({ name: 'Phone', lastUsedAt: null });
    expect((await register(m.token, laptop, 'Laptop')).res.status).toBe(201);
    const listed = await api.get('/auth/passkeys', m.token);
    expect(listed.body.data.passkeys.map((p: { name: string }) => p.name).sort()).toEqual(['Laptop', 'Phone']);
    expect(JSON.stringify(listed.body)).not.toMatch(/publicKey|public_key/);

    const { res } = await signIn(phone);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: m.id, email: m.email });
    expect(res.body.data.mfaRequired).toBeUndefined();
    expect(cookiesOf(res.headers).refresh_token).toBeTruthy();
    expect((await api.get('/users/profile', res.body.data.token)).status).toBe(200);
    const used = (await api.get('/auth/passkeys', m.token)).body.data.passkeys as { id: string; name: string; lastUsedAt: string | null }[];
    const phoneRow = used.find((p) => p.name === 'Phone');
    expect(phoneRow?.lastUsedAt).toEqual(expect.any(String));
    expect(used.find((p) => p.name === 'Laptop')?.lastUsedAt).toBeNull();

    const removed = await api.call('DELETE', `/auth/passkeys/${phoneRow?.id}`, { token: m.token });
    expect(removed.status).toBe(200);
    expect((await api.get('/auth/passkeys', m.token)).body.data.passkeys).toHaveLength(1);
    const afterRemoval = await signIn(phone);
    expect(afterRemoval.res.status).toBe(401);
    expect(afterRemoval.res.body).toMatchObject({ success: false, code: 'passkey.not_verified' });
    expect((await signIn(laptop)).res.status).toBe(200);
  });

  it('bad names and malformed answers are 400s that register nothing', async () => {
    const m = await approvedMember(api);
    const key = new SoftAuthenticator(origin());
    expect((await register(m.token, key, '   ')).res.status).toBe(400);
    expect((await register(m.token, key, 'x'.repeat(61))).res.status).toBe(400);
    const started = await api.post('/auth/passkeys/registration', undefined, m.token);
    const bad = await api.post(
      '/auth/passkeys',
      { ceremonyId: started.body.data.ceremonyId, name: 'Key', credential: { id: 'a' } },
      m.token,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    const garbage = key.create(started.body.data.options);
    garbage.response.attestationObject = 'AAAA';
    const refused = await api.post(
      '/auth/passkeys',
      { ceremonyId: started.body.data.ceremonyId, name: 'Key', credential: garbage },
      m.token,
    );
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'passkey.not_verified' });
    expect((await api.get('/auth/passkeys', m.token)).body.data.passkeys).toEqual([]);
    expect((await api.post('/auth/passkeys/login', { ceremonyId: 'x', credential: 'nope' })).status).toBe(400);
  });

  it('ending other sessions is confirmed with a passkey instead of the password; only the holder’s own, once', async () => {
    const m = await approvedMember(api);
    const other = await approvedMember(api);
    const key = new SoftAuthenticator(origin());
    const othersKey = new SoftAuthenticator(origin());
    expect((await register(m.token, key)).res.status).toBe(201);
    expect((await register(other.token, othersKey)).res.status).toBe(201);
    const phone = await api.post('/auth/login', { email: m.email, password: m.password });
    const confirm = async (authenticator: SoftAuthenticator) => {
      const started = await api.post('/auth/passkeys/reauthentication', undefined, m.token);
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      return { ceremonyId: started.body.data.ceremonyId, credential: authenticator.get(started.body.data.options) };
    };
    // Another member's passkey, or a sign-in ceremony, confirms nothing; nothing ended.
    const foreign = await api.call('DELETE', '/users/me/sessions', { token: m.token, body: { passkey: await confirm(othersKey) } });
    expect(foreign.status).toBe(401);
    const login = await api.post('/auth/passkeys/login/options');
    const misused = await api.call('DELETE', '/users/me/sessions', {
      token: m.token,
      body: { passkey: { ceremonyId: login.body.data.ceremonyId, credential: key.get(login.body.data.options) } },
    });
    expect(misused.status).toBe(400);
    expect((await api.get('/users/profile', phone.body.data.token)).status).toBe(200);

    const proof = await confirm(key);
    const ended = await api.call('DELETE', '/users/me/sessions', { token: m.token, body: { passkey: proof } });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(ended.body.data.revoked).toBeGreaterThanOrEqual(1);
    expect((await api.get('/users/profile', phone.body.data.token)).status).toBe(401);
    // The same answer again: its ceremony was taken.
    expect((await api.call('DELETE', '/users/me/sessions', { token: m.token, body: { passkey: proof } })).status).toBe(400);
    // Both or neither: a 400.
    expect((await api.call('DELETE', '/users/me/sessions', { token: m.token, body: {} })).status).toBe(400);
    // Without a passkey, the confirmation ceremony is a 404: the password is the way.
    expect((await api.post('/auth/passkeys/reauthentication', undefined, (await approvedMember(api)).token)).status).toBe(404);
  });

  describe('attacks', () => {
    it('a phishing page (another origin) gets neither a registration nor a sign-in', async () => {
      const m = await approvedMember(api);
      const key = new SoftAuthenticator(origin());
      const phished = await register(m.token, key, 'Key', { origin: 'https://members-example.evil.test' });
      expect(phished.res.status).toBe(401);
      expect((await register(m.token, key)).res.status).toBe(201);
      const { res } = await signIn(key, undefined, { origin: 'https://members-example.evil.test' });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'passkey.not_verified' });
    });

    it('an answer replayed, or sent to another ceremony, signs nobody in', async () => {
      const m = await approvedMember(api);
      const key = new SoftAuthenticator(origin());
      const reg = await register(m.token, key);
      expect(reg.res.status).toBe(201);
      // The registration answer again: its challenge was taken.
      const again = await api.post('/auth/passkeys', { ceremonyId: reg.ceremonyId, name: 'Again', credential: reg.credential }, m.token);
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ code: 'passkey.ceremony_expired' });
      const first = await signIn(key);
      expect(first.res.status).toBe(200);
      const replay = await api.post('/auth/passkeys/login', { ceremonyId: first.ceremonyId, credential: first.credential });
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ code: 'passkey.ceremony_expired' });
      // Signed for one challenge, sent with a fresh ceremony.
      const fresh = await api.post('/auth/passkeys/login/options');
      const misplaced = await api.post('/auth/passkeys/login', { ceremonyId: fresh.body.data.ceremonyId, credential: first.credential });
      expect(misplaced.status).toBe(401);
      // A ceremony past its five minutes.
      const late = await api.post('/auth/passkeys/login/options');
      server.clock.advance(5 * 60 * 1000 + 1000);
      const expired = await api.post('/auth/passkeys/login', {
        ceremonyId: late.body.data.ceremonyId,
        credential: key.get(late.body.data.options),
      });
      expect(expired.status).toBe(400);
    });

    it("someone who knows a passkey's id but not its key, or skips user verification, or claims another account, is refused", async () => {
      const victim = await approvedMember(api);
      const attacker = await approvedMember(api);
      const key = new SoftAuthenticator(origin());
      expect((await register(victim.token, key)).res.status).toBe(201);
      const forged = await signIn(key, undefined, { signWith: foreignKey() });
      expect(forged.res.status).toBe(401);
      const noUv = await signIn(key, undefined, { noUserVerification: true });
      expect(noUv.res.status).toBe(401);
      const handle = Buffer.from(attacker.id).toString('base64url');
      expect((await signIn(key, undefined, { userHandle: handle })).res.status).toBe(401);
      // No user verification at registration either.
      const other = new SoftAuthenticator(origin());
      expect((await register(attacker.token, other, 'Key', { noUserVerification: true })).res.status).toBe(401);
      // The victim's own passkey still works: nothing above changed it.
      expect((await signIn(key)).res.status).toBe(200);
    });

    it("a registration ceremony is its account's only; another member's passkey cannot be seen or removed", async () => {
      const victim = await approvedMember(api);
      const attacker = await approvedMember(api);
      const started = await api.post('/auth/passkeys/registration', undefined, victim.token);
      const key = new SoftAuthenticator(origin());
      const credential = key.create(started.body.data.options);
      const stolen = await api.post(
        '/auth/passkeys',
        { ceremonyId: started.body.data.ceremonyId, name: 'Mine', credential },
        attacker.token,
      );
      expect(stolen.status).toBe(400);
      expect((await api.get('/auth/passkeys', attacker.token)).body.data.passkeys).toEqual([]);
      const own = new SoftAuthenticator(origin());
      const registered = await register(victim.token, own);
      const id = registered.res.body.data.passkey.id;
      expect((await api.call('DELETE', `/auth/passkeys/${id}`, { token: attacker.token })).status).toBe(404);
      expect((await api.call('DELETE', `/auth/passkeys/${id}`)).status).toBe(401);
      expect((await signIn(own)).res.status).toBe(200);
    });

    it("an attestation naming another member's credential id registers nothing and reveals nothing", async () => {
      const victim = await approvedMember(api);
      const attacker = await approvedMember(api);
      const key = new SoftAuthenticator(origin());
      const registered = await register(victim.token, key, 'Victim phone');
      const victimId = registered.res.body.data.passkey.id as string;
      const forged = await register(attacker.token, new SoftAuthenticator(origin()), 'Mine', { credentialId: victimId });
      expect(forged.res.status).toBe(409);
      expect(forged.res.body).toMatchObject({ success: false, code: 'passkey.already_registered' });
      expect(JSON.stringify(forged.res.body)).not.toContain('Victim phone');
      expect((await api.get('/auth/passkeys', attacker.token)).body.data.passkeys).toEqual([]);
      expect((await signIn(key)).res.body.data.user.id).toBe(victim.id);
    });

    it('a counting authenticator whose counter goes back (a cloned key) is refused', async () => {
      const m = await approvedMember(api);
      const key = new SoftAuthenticator(origin(), true);
      expect((await register(m.token, key)).res.status).toBe(201);
      expect((await signIn(key)).res.status).toBe(200);
      expect((await signIn(key)).res.status).toBe(200);
      const clone = await signIn(key, undefined, { counter: 1 });
      expect(clone.res.status).toBe(401);
    });

    it('a suspended member cannot sign in with a passkey; an erased one leaves no passkey behind', async () => {
      const admin = await adminLogin(api);
      const suspended = await approvedMember(api);
      const key = new SoftAuthenticator(origin());
      expect((await register(suspended.token, key)).res.status).toBe(201);
      expect((await api.post(`/admin/users/${suspended.id}/suspend`, { reason: 'Chargeback fraud' }, admin.token)).status).toBe(200);
      const refused = await signIn(key);
      expect(refused.res.status).toBe(403);
      expect(refused.res.body).toMatchObject({ code: 'auth.login_suspended' });
      const erased = await approvedMember(api);
      const erasedKey = new SoftAuthenticator(origin());
      expect((await register(erased.token, erasedKey)).res.status).toBe(201);
      const gone = await api.call('DELETE', '/users/me', {
        body: { password: erased.password, confirmation: 'DELETE' },
        token: erased.token,
      });
      expect(gone.status, JSON.stringify(gone.body)).toBe(200);
      expect((await signIn(erasedKey)).res.status).toBe(401);
      const rows = await server.ctx.db.all('SELECT id FROM passkeys WHERE user_id = ?', [erased.id]);
      expect(rows).toEqual([]);
      // The name the member chose is sealed in the log, unreadable once their key is destroyed.
      const events = await server.ctx.db.all<{ data: string }>("SELECT data FROM events WHERE type = 'PasskeyRegistered'");
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) {
        expect(e.data).not.toContain('Laptop');
        expect(e.data).not.toContain('"publicKey":');
      }
    });
  });

  describe('a passkey as the second factor of an admin (REQUIRE_ADMIN_2FA)', () => {
    beforeAll(async () => {
      server = await server.restart({ REQUIRE_ADMIN_2FA: 'true' });
      api = apiClient(server.url);
    });

    it('an admin registers a passkey during enrolment, then signs in with it and needs no TOTP; the password alone no longer does', async () => {
      const first = await api.post('/auth/login', TEST_ADMIN);
      expect(first.status).toBe(200);
      expect(first.body.data.mfaEnrollmentRequired).toBe(true);
      expect((await api.get('/admin/stats', first.body.data.token)).status).toBe(403);
      const key = new SoftAuthenticator(origin());
      const registered = await register(first.body.data.token, key, 'Admin laptop');
      expect(registered.res.status, JSON.stringify(registered.res.body)).toBe(201);

      const password = await api.post('/auth/login', TEST_ADMIN);
      expect(password.status).toBe(401);
      expect(password.body).toMatchObject({
        success: false,
        code: 'auth.passkey_required',
        error: 'Sign in with your passkey: your account uses it as its second factor.',
      });
      const { res } = await signIn(key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.mfaEnrollmentRequired).toBeUndefined();
      expect(res.body.data.user.role).toBe('admin');
      expect((await api.get('/admin/stats', res.body.data.token)).status).toBe(200);
      // The status page counts the passkey: not required any more.
      expect((await api.get('/auth/mfa', res.body.data.token)).body.data.required).toBe(false);
    });
  });
});
