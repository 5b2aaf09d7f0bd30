/**
 * The TOTP second factor over real HTTP on both stores: enrolment, login with a code, single-use
 * codes, recovery codes, removal, REQUIRE_ADMIN_2FA, the failed-login limit, and the secret kept
 * out of the log in clear. Codes are computed from the enrolled secret on the server's clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SECOND_FACTOR_ENROLMENT_REQUIRED } from '@members/ui/secondFactor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { cookieHeader, cookiesOf, login, registerMember } from './identity.testkit.js';
import { resetSecondFactor } from './mfa.service.js';
import { recoveryCodeHash, totpCode } from './totp.js';
import { wrongTotpCode } from './totp.testkit.js';

type Api = ReturnType<typeof apiClient>;

/** Enrols and confirms a second factor for the bearer of `token`; returns the secret and recovery codes. */
async function enrol(api: Api, server: TestServer, token: string) {
  const started = await api.post('/auth/mfa/enroll', undefined, token);
  expect(started.status).toBe(200);
  const { secret, otpauthUri, recoveryCodes } = started.body.data as { secret: string; otpauthUri: string; recoveryCodes: string[] };
  const confirmed = await api.post('/auth/mfa/enroll/confirm', { code: totpCode(secret, server.clock.now()) }, token);
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
  // The next code is a new time step: the confirming code is spent.
  server.clock.advance(30_000);
  return { secret, otpauthUri, recoveryCodes };
}

const nextStep = (server: TestServer) => server.clock.advance(30_000);

forEachStore('second factor', (kind) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { LOGIN_FAILURES_PER_ACCOUNT: '4' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it('enrol → confirm → login asks for a code → wrong 401 → right code → replay 401 → recovery code once → disable', async () => {
    const m = await registerMember(api);
    const first = await login(api, m.email, m.password);
    expect((await api.get('/auth/mfa', first.token)).body.data).toEqual({
      enabled: false,
      pending: false,
      recoveryCodesLeft: 0,
      required: false,
    });

    const started = await api.post('/auth/mfa/enroll', undefined, first.token);
    expect(started.status).toBe(200);
    const { secret, otpauthUri, recoveryCodes } = started.body.data;
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=/);
    expect(otpauthUri).toContain('algorithm=SHA1');
    expect(otpauthUri).toContain('digits=6');
    expect(otpauthUri).toContain('period=30');
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // Not active until confirmed: login still gives a session directly.
    expect((await api.post('/auth/login', { email: m.email, password: m.password })).body.data.token).toEqual(expect.any(String));
    const wrongConfirm = await api.post('/auth/mfa/enroll/confirm', { code: wrongTotpCode(secret, server.clock.now()) }, first.token);
    expect(wrongConfirm.status).toBe(400);
    expect((await api.post('/auth/mfa/enroll/confirm', { code: totpCode(secret, server.clock.now()) }, first.token)).status).toBe(200);
    nextStep(server);

    // 1. Login now answers a challenge in place of the token, and sets no cookie.
    const challenge = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(challenge.status).toBe(200);
    expect(challenge.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    expect(challenge.headers.getSetCookie()).toEqual([]);
    const { mfaToken } = challenge.body.data;
    // The challenge token is no access token.
    expect((await api.get('/users/profile', mfaToken)).status).toBe(401);

    // 2. A wrong code is a 401; the right one answers exactly what login answers.
    const right = totpCode(secret, server.clock.now());
    const wrong = wrongTotpCode(secret, server.clock.now());
    const refused = await api.post('/auth/mfa/verify', { mfaToken, code: wrong });
    expect(refused.status).toBe(401);
    const verified = await api.post('/auth/mfa/verify', { mfaToken, code: right });
    expect(verified.status).toBe(200);
    expect(Object.keys(verified.body.data).sort()).toEqual(['expiresIn', 'token', 'user']);
    expect(verified.body.data.user).toMatchObject({ id: m.id, email: m.email });
    const cookies = cookiesOf(verified.headers);
    expect(cookies.refresh_token).toBeTruthy();
    expect((await api.get('/users/profile', verified.body.data.token)).status).toBe(200);

    // 3. The same code again, even with a fresh challenge, is refused.
    const again = await api.post('/auth/login', { email: m.email, password: m.password });
    const replay = await api.post('/auth/mfa/verify', { mfaToken: again.body.data.mfaToken, code: right });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already been used/);

    // 4. The refresh cookie from the verified login keeps the session going without a code.
    const refreshed = await api.call('POST', '/auth/refresh', {
      headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token as string },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.token).toEqual(expect.any(String));

    // 5. A recovery code works once (any case, with or without dashes).
    const recovery = recoveryCodes[3] as string;
    const viaRecovery = await api.post('/auth/mfa/verify', { mfaToken: again.body.data.mfaToken, code: recovery.toLowerCase() });
    expect(viaRecovery.status).toBe(200);
    const third = await api.post('/auth/login', { email: m.email, password: m.password });
    expect((await api.post('/auth/mfa/verify', { mfaToken: third.body.data.mfaToken, code: recovery.replace(/-/g, '') })).status).toBe(401);
    const token = viaRecovery.body.data.token as string;
    expect((await api.get('/auth/mfa', token)).body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 9 });

    // 6. Disabling needs the password and a code.
    nextStep(server);
    expect(
      (await api.post('/auth/mfa/disable', { password: 'wrong-password', code: totpCode(secret, server.clock.now()) }, token)).status,
    ).toBe(401);
    nextStep(server);
    const disabled = await api.post('/auth/mfa/disable', { password: m.password, code: totpCode(secret, server.clock.now()) }, token);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toMatchObject({ enabled: false });
    const plain = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(plain.body.data.token).toEqual(expect.any(String));

    // The account holder is told of each change.
    await server.subscribers.drain();
    const notices = await server.ctx.db.all<{ subject: string }>(
      `SELECT subject FROM mail_outbox WHERE to_address = ? AND key LIKE 'second-factor:%' ORDER BY created_at, key`,
      [m.email],
    );
    expect(notices.map((n) => n.subject.replace(/^.*?: /, '')).sort()).toEqual(
      ['a recovery code was used', 'two-factor authentication turned off', 'two-factor authentication turned on'].sort(),
    );

    // Every step is an event on the account's stream.
    const types = (await server.ctx.store.readStream(`user-${m.id}`)).map((e) => e.type);
    expect(types.filter((t) => /SecondFactor|RecoveryCode/.test(t))).toEqual([
      'SecondFactorEnrolmentStarted',
      'SecondFactorEnrolled',
      'RecoveryCodeUsed',
      'SecondFactorRemoved',
    ]);
  });

  it('an expired or forged challenge is refused; a challenge from before a password change is void', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret } = await enrol(api, server, token);
    const challenge = await api.post('/auth/login', { email: m.email, password: m.password });
    server.clock.advance(5 * 60 * 1000 + 1000);
    const late = await api.post('/auth/mfa/verify', { mfaToken: challenge.body.data.mfaToken, code: totpCode(secret, server.clock.now()) });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('Your sign-in attempt has expired. Please log in again.');
    const forged = await api.post('/auth/mfa/verify', { mfaToken: `${challenge.body.data.mfaToken}x`, code: '123456' });
    expect(forged.status).toBe(401);
    // An access token is no challenge token either.
    expect((await api.post('/auth/mfa/verify', { mfaToken: token, code: totpCode(secret, server.clock.now()) })).status).toBe(401);
    expect((await api.post('/auth/mfa/verify', { code: '123456' })).status).toBe(400);
  });

  it('wrong codes count toward the failed-login limit (429, even with the right code afterwards)', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret } = await enrol(api, server, token);
    const wrong = wrongTotpCode(secret, server.clock.now());
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const challenge = await api.post('/auth/login', { email: m.email, password: m.password });
      statuses.push((await api.post('/auth/mfa/verify', { mfaToken: challenge.body.data.mfaToken, code: wrong })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401]);
    const blocked = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(blocked.status).toBe(429);
    server.clock.advance(Number(blocked.headers.get('retry-after')) * 1000);
    const challenge = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(
      (await api.post('/auth/mfa/verify', { mfaToken: challenge.body.data.mfaToken, code: totpCode(secret, server.clock.now()) })).status,
    ).toBe(200);
  });

  it('an operator reset (lost device and recovery codes) removes the factor and its secret', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    await enrol(api, server, token);
    expect((await api.post('/auth/login', { email: m.email, password: m.password })).body.data.mfaRequired).toBe(true);
    const reset = await resetSecondFactor(server.ctx, m.id, { actorId: null, actor: 'cli:mfa-reset' });
    expect(reset).toMatchObject({ ok: true, value: { enabled: false } });
    expect(await server.ctx.db.get('SELECT 1 FROM second_factor_secrets WHERE user_id = ?', [m.id])).toBeUndefined();
    const events = await server.ctx.store.readStream(`user-${m.id}`);
    expect(events.at(-1)).toMatchObject({ type: 'SecondFactorRemoved', data: { removedBy: 'cli:mfa-reset' } });
    expect((await api.post('/auth/login', { email: m.email, password: m.password })).body.data.token).toEqual(expect.any(String));
  });

  it('the TOTP secret is never in clear in the store (events table, and the SQLite file bytes)', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret, recoveryCodes } = await enrol(api, server, token);
    const rows = await server.ctx.db.all('SELECT data, metadata FROM events');
    const log = JSON.stringify(rows);
    // Positive control: the enrolment is in the log (its recovery codes as hashes only).
    expect(log).toContain(recoveryCodeHash(recoveryCodes[0] as string));
    for (const needle of [secret, ...recoveryCodes, ...recoveryCodes.map((c) => c.replace(/-/g, ''))]) expect(log).not.toContain(needle);
    const stored = await server.ctx.db.get<{ secret_ciphertext: string }>(
      'SELECT secret_ciphertext FROM second_factor_secrets WHERE user_id = ?',
      [m.id],
    );
    expect(stored?.secret_ciphertext).toMatch(/^v1\./);
    expect(stored?.secret_ciphertext).not.toContain(secret);
    if (kind === 'sqlite') {
      const dir = server.store.dataDir;
      const bytes = fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('store.sqlite'))
        .map((f) => fs.readFileSync(path.join(dir, f)).toString('latin1'))
        .join('');
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes).not.toContain(secret);
    }
  });
});

forEachStore('second-factor challenge (production)', (kind) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { NODE_ENV: 'production' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it('one challenge token gives one session: a TOTP code, then a recovery code, then the next TOTP', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret, recoveryCodes } = await enrol(api, server, token);
    const challenge = await api.post('/auth/login', { email: m.email, password: m.password });
    const { mfaToken } = challenge.body.data;
    const first = await api.post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, server.clock.now()) });
    expect(first.status).toBe(200);
    const viaRecovery = await api.post('/auth/mfa/verify', { mfaToken, code: recoveryCodes[0] });
    expect(viaRecovery.status).toBe(401);
    expect(viaRecovery.body).toEqual({
      success: false,
      error: 'This sign-in attempt has already been used. Please log in again.',
      code: 'mfa.challenge_expired',
    });
    nextStep(server);
    const next = await api.post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, server.clock.now()) });
    expect(next.status).toBe(401);
    expect(next.headers.getSetCookie()).toEqual([]);
    // The recovery code was not spent by the refused attempt.
    expect((await api.get('/auth/mfa', first.body.data.token)).body.data).toMatchObject({ recoveryCodesLeft: 10 });
  });

  it('two right codes at once with one token: one session', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret, recoveryCodes } = await enrol(api, server, token);
    const { mfaToken } = (await api.post('/auth/login', { email: m.email, password: m.password })).body.data;
    const answers = await Promise.all([
      api.post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, server.clock.now()) }),
      api.post('/auth/mfa/verify', { mfaToken, code: recoveryCodes[1] }),
      api.post('/auth/mfa/verify', { mfaToken, code: recoveryCodes[2] }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
  });

  it('a wrong code does not use up the token', async () => {
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { secret } = await enrol(api, server, token);
    const { mfaToken } = (await api.post('/auth/login', { email: m.email, password: m.password })).body.data;
    expect((await api.post('/auth/mfa/verify', { mfaToken, code: wrongTotpCode(secret, server.clock.now()) })).status).toBe(401);
    expect((await api.post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, server.clock.now()) })).status).toBe(200);
  });
});

forEachStore('REQUIRE_ADMIN_2FA', (kind) => {
  let server: TestServer;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { REQUIRE_ADMIN_2FA: 'true' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  it('holds an admin without a second factor to the enrolment routes until enrolled, then asks for the code at login', async () => {
    const first = await api.post('/auth/login', TEST_ADMIN);
    expect(first.status).toBe(200);
    expect(first.body.data.mfaEnrollmentRequired).toBe(true);
    const token = first.body.data.token as string;
    for (const p of ['/admin/stats', '/admin/users/pending', '/users/profile', '/payments/subscription']) {
      const res = await api.get(p, token);
      expect(res.status, p).toBe(403);
      expect(res.body.error).toBe(SECOND_FACTOR_ENROLMENT_REQUIRED);
    }
    // Public information and the enrolment routes stay reachable.
    expect((await api.get('/site', token)).status).toBe(200);
    expect((await api.get('/auth/mfa', token)).body.data).toMatchObject({ enabled: false, required: true });

    const { secret } = await enrol(api, server, token);
    expect((await api.get('/admin/stats', token)).status).toBe(200);

    const challenge = await api.post('/auth/login', TEST_ADMIN);
    expect(challenge.body.data.mfaRequired).toBe(true);
    const verified = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(secret, server.clock.now()),
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data.mfaEnrollmentRequired).toBeUndefined();
    expect((await api.get('/admin/stats', verified.body.data.token)).status).toBe(200);
  });

  it('members are not required to enrol', async () => {
    const m = await registerMember(api);
    const res = await api.post('/auth/login', { email: m.email, password: m.password });
    expect(res.body.data.mfaEnrollmentRequired).toBeUndefined();
    expect((await api.get('/users/profile', res.body.data.token)).status).toBe(200);
  });
});

describe('REQUIRE_ADMIN_2FA default', () => {
  it('is on in production and off otherwise', async () => {
    const { parseEnv } = await import('../config/env.js');
    expect(parseEnv({ NODE_ENV: 'production' }).REQUIRE_ADMIN_2FA).toBe(true);
    expect(parseEnv({ NODE_ENV: 'development' }).REQUIRE_ADMIN_2FA).toBe(false);
    expect(parseEnv({ NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false' }).REQUIRE_ADMIN_2FA).toBe(false);
  });
});
