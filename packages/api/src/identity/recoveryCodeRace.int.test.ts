/**
 * ASVS 2.6.1 (a lookup secret works once) against the race, on the production configuration: one
 * recovery code sent by several sign-ins at the same moment, each with its own password challenge.
 * Exactly one gets a session; the others are refused with the product's code, and the code is spent
 * once (one `RecoveryCodeUsed`, nine codes left after the first round). On PostgreSQL the sign-ins
 * go to two API processes on one database, where the race is between processes; the embedded
 * SQLite store runs one process, so there they are concurrent requests to it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { enrolSecondFactor, login, registerMember } from './identity.testkit.js';
import { recoveryCodeHash } from './totp.js';

/** Sign-ins racing with one code per round; rounds with fresh codes, so one lucky ordering cannot pass for a guarantee. */
const RACERS = 4;
const ROUNDS = 5;

forEachStore('one recovery code used by several sign-ins at once (production)', (kind) => {
  const servers: TestServer[] = [];

  beforeAll(async () => {
    const env = {
      NODE_ENV: 'production',
      MAIL_TRANSPORT: 'outbox',
      // Every racer comes from 127.0.0.1, and the losers' refusals count as failed logins: not what is tested here.
      AUTH_REQUESTS_PER_IP_PER_MINUTE: '10000',
      LOGIN_FAILURES_PER_ADDRESS: '1000',
    };
    const a = await startTestServer(kind, { env });
    servers.push(a);
    if (kind === 'postgres') {
      // A second API process on the same database, as behind nginx (its own data directory, one clock for both).
      const dir = tmpDir('members-test-b-');
      const store = {
        env: { DATA_DIR: dir, DATABASE_URL: a.store.env.DATABASE_URL as string },
        dataDir: dir,
        cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
      servers.push(await startTestServer(kind, { store, env, clock: a.clock }));
    }
  });
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close();
  });

  it(`${RACERS} sign-ins with the same recovery code at once: one session, the others refused, the code spent once (${ROUNDS} rounds)`, async () => {
    const [first] = servers as [TestServer];
    const api = apiClient(first.url);
    const m = await registerMember(api);
    const { token } = await login(api, m.email, m.password);
    const { recoveryCodes } = await enrolSecondFactor(api, first.clock, token);
    const via = (i: number) => apiClient((servers[i % servers.length] as TestServer).url);

    for (let round = 0; round < ROUNDS; round++) {
      const code = recoveryCodes[round] as string;
      // Each racer has passed the password step on its own.
      const challenges = await Promise.all(
        Array.from({ length: RACERS }, async (_, i) => {
          const r = await via(i).post('/auth/login', { email: m.email, password: m.password });
          expect(r.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
          return r.body.data.mfaToken as string;
        }),
      );
      const answers = await Promise.all(challenges.map((mfaToken, i) => via(i).post('/auth/mfa/verify', { mfaToken, code })));
      const won = answers.filter((a) => a.status === 200);
      expect({ round, sessions: won.length }).toEqual({ round, sessions: 1 });
      for (const lost of answers.filter((a) => a.status !== 200)) {
        expect({ status: lost.status, body: lost.body }).toEqual({
          status: 401,
          body: { success: false, error: 'This recovery code is not valid or has already been used', code: 'mfa.invalid_code' },
        });
        expect(lost.headers.getSetCookie()).toEqual([]);
      }
      const session = won[0]?.body.data.token as string;
      expect((await api.get('/auth/mfa', session)).body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 9 - round });
    }

    // The log holds one use of each raced code, no more.
    const uses = (await first.ctx.store.readStream(`user-${m.id}`))
      .filter((e) => e.type === 'RecoveryCodeUsed')
      .map((e) => (e.data as { codeHash: string }).codeHash);
    expect(uses).toEqual(recoveryCodes.slice(0, ROUNDS).map(recoveryCodeHash));
  });
});
