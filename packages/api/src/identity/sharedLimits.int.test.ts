/**
 * The limits of identity hold across API processes: two servers on one PostgreSQL database (as
 * behind nginx, each with its own counters in memory would double every limit), production
 * configuration. Reset requests spread over both get at most MAILS_PER_RECIPIENT_PER_HOUR mails; an
 * attacker's failed logins through one count against their address at the other; a second-factor
 * challenge used at one is refused at the other.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type FreshStore, freshStore, startTestServer, storeKinds, type TestServer, tmpDir } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { enrolSecondFactor, login, registerMember } from './identity.testkit.js';
import { totpCode } from './totp.js';

const PER_RECIPIENT = 5;

for (const kind of storeKinds.filter((k) => k === 'postgres')) {
  describe('identity limits shared by two API processes [postgres]', () => {
    let store: FreshStore;
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      store = await freshStore(kind);
      const dirB = tmpDir('members-test-b-');
      const storeB = {
        env: { DATA_DIR: dirB, DATABASE_URL: store.env.DATABASE_URL as string },
        dataDir: dirB,
        cleanup: async () => fs.rmSync(dirB, { recursive: true, force: true }),
      };
      const env = { NODE_ENV: 'production', TRUST_PROXY: 'true', MAIL_TRANSPORT: 'outbox' };
      a = await startTestServer(kind, { store, env });
      // One clock for both, as one wall clock for two processes.
      b = await startTestServer(kind, { store: storeB, env, clock: a.clock });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    it('reset requests spread over both processes: at most the per-recipient limit of mails', async () => {
      const m = await registerMember(apiClient(a.url));
      for (let i = 0; i < 12; i++)
        expect((await apiClient(i % 2 ? b.url : a.url).post('/auth/reset-password', { email: m.email })).status).toBe(200);
      await a.subscribers.drain();
      await b.subscribers.drain();
      expect(await mailsTo(a, m.email)).toHaveLength(PER_RECIPIENT);
    });

    it("an address's failed logins at one process count at the other; a challenge used at one is refused at the other", async () => {
      const m = await registerMember(apiClient(a.url));
      const { token } = await login(apiClient(a.url), m.email, m.password);
      const { secret } = await enrolSecondFactor(apiClient(a.url), a.clock, token);
      a.clock.advance(30_000);
      const from = { 'x-forwarded-for': '198.51.100.9' };
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push(
          (
            await apiClient(i % 2 ? b.url : a.url).call('POST', '/auth/login', {
              body: { email: m.email, password: 'wrong' },
              headers: from,
            })
          ).status,
        );
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);

      const { mfaToken } = (await apiClient(a.url).post('/auth/login', { email: m.email, password: m.password })).body.data;
      expect((await apiClient(a.url).post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, a.clock.now()) })).status).toBe(200);
      a.clock.advance(30_000);
      const again = await apiClient(b.url).post('/auth/mfa/verify', { mfaToken, code: totpCode(secret, a.clock.now()) });
      expect(again.status).toBe(401);
      expect(again.body.error).toBe('This sign-in attempt has already been used. Please log in again.');
    });
  });
}
