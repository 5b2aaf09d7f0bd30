/**
 * The desktop console with a server that requires admins' second factor: the forced setup before
 * anything else, then a sign-in with its code step, all through the main-process IPC service.
 * Codes are computed from the enrolled secret on the server's clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN, type TestServer, tmpDir, totpCode, wrongTotpCode } from '../../test/fixtures.js';
import { fileConfigStore, memorySecretStore } from './configStore.js';
import { createDesktopService } from './desktopService.js';
import { createSession } from './session.js';

const dir = tmpDir('desktop-mfa-');
let server: TestServer;

function service() {
  const session = createSession({ config: fileConfigStore(path.join(dir, 'config')), secrets: memorySecretStore() });
  const svc = createDesktopService({
    session,
    chooseFiles: async () => [],
    openExternal: async () => {},
    thumbnailDir: path.join(dir, 'thumbs'),
    queueOptions: { progressIntervalMs: 0 },
  });
  return { session, svc };
}

beforeAll(async () => {
  server = await startTestServer('sqlite', { env: { REQUIRE_ADMIN_2FA: 'true' } });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('holds the admin to the setup, then asks for the code at the next sign-in', async () => {
  const { svc } = service();
  const signIn = { serverUrl: server.url, email: TEST_ADMIN.email, password: TEST_ADMIN.password };
  expect(await svc.invoke('session:signIn', signIn)).toMatchObject({ ok: true, data: { ok: true, secondFactorSetupRequired: true } });
  expect(await svc.invoke('session:get', {})).toMatchObject({ ok: true, data: { secondFactorSetupRequired: true } });
  expect(await svc.invoke('api:request', { method: 'GET', path: '/admin/stats' })).toMatchObject({ data: { status: 403 } });

  const started = (await svc.invoke('session:startEnrolment', {})) as { ok: true; data: { secret: string; recoveryCodes: string[] } };
  expect(started.data.recoveryCodes).toHaveLength(10);
  const confirmed = await svc.invoke('session:confirmEnrolment', { code: totpCode(started.data.secret, server.clock.now()) });
  expect(confirmed).toEqual({ ok: true });
  expect((await svc.invoke('session:get', {})) as { data: object }).not.toHaveProperty('data.secondFactorSetupRequired');
  expect(await svc.invoke('api:request', { method: 'GET', path: '/admin/stats' })).toMatchObject({ data: { status: 200 } });
  await svc.invoke('session:signOut', {});

  // Next sign-in: the password, then the code.
  server.clock.advance(30_000);
  const fresh = service().svc;
  expect(await fresh.invoke('session:signIn', signIn)).toMatchObject({ ok: true, data: { ok: false, mfaRequired: true } });
  expect(await fresh.invoke('session:get', {})).toMatchObject({ data: { user: null } });
  const code = totpCode(started.data.secret, server.clock.now());
  const wrong = await fresh.invoke('session:verifyCode', { code: wrongTotpCode(started.data.secret, server.clock.now()) });
  expect(wrong).toMatchObject({ ok: true, data: { ok: false } });
  expect(await fresh.invoke('session:verifyCode', { code })).toMatchObject({ ok: true, data: { ok: true, user: { role: 'admin' } } });
  expect(await fresh.invoke('api:request', { method: 'GET', path: '/admin/stats' })).toMatchObject({ data: { status: 200 } });
});
