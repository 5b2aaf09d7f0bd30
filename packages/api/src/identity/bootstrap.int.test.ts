/** The admin bootstrap in development without ADMIN_PASSWORD: a generated password, printed once. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { DEV_ADMIN_EMAIL, isAdminEmail } from './bootstrap.js';
import { login } from './identity.testkit.js';

forEachStore('admin bootstrap (development defaults)', (kind) => {
  let server: TestServer;
  const printed: string[] = [];

  beforeAll(async () => {
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    try {
      // Empty values count as unset: no ADMIN_EMAIL, no ADMIN_PASSWORD, NODE_ENV=test.
      server = await startTestServer(kind, { env: { ADMIN_EMAIL: '', ADMIN_PASSWORD: '' } });
    } finally {
      spy.mockRestore();
    }
  });
  afterAll(async () => server?.close());

  it('creates admin@localhost with a generated password, printed once as a dev default', async () => {
    const file = path.join(server.ctx.env.DATA_DIR, 'dev-admin-password');
    const password = fs.readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(16);
    const output = printed.join('\n');
    expect(output).toContain('[dev default]');
    expect(output).toContain(password);
    const admin = await login(apiClient(server.url), DEV_ADMIN_EMAIL, password);
    expect(admin.user).toMatchObject({ role: 'admin', approved: true });
    expect(isAdminEmail(server.ctx.env, 'Admin@Localhost')).toBe(true);
    expect(isAdminEmail(server.ctx.env, 'someone@example.test')).toBe(false);
  });

  it('a restart reuses the password: nothing printed, no new events', async () => {
    const head = await server.ctx.store.headPosition();
    printed.length = 0;
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    try {
      server = await server.restart();
    } finally {
      spy.mockRestore();
    }
    expect(printed.join('\n')).not.toContain('admin password');
    expect(await server.ctx.store.headPosition()).toBe(head);
  });
});
