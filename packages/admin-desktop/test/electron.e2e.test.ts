/**
 * Smoke test of the real Electron app (main process, preload, app:// renderer) with Playwright's
 * Electron support: it starts and an admin signs in. Runs only where an Electron binary exists
 * (ELECTRON_PATH or a normal install); elsewhere it is reported as skipped with the reason.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { _electron as electron } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findElectron } from './electronBinary.js';
import { startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './fixtures.js';
import { packageDir } from './renderer.js';

const binary = findElectron();
const title = binary.path
  ? `launches the Electron app (${binary.reason}) and signs an admin in`
  : `launches the Electron app and signs an admin in — SKIPPED: ${binary.reason}`;

describe('Electron smoke', () => {
  let server: TestServer | undefined;
  const userData = tmpDir('desktop-electron-');

  beforeAll(async () => {
    if (!binary.path) return;
    execFileSync('pnpm', ['run', 'build'], {
      cwd: packageDir,
      stdio: 'inherit',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
    server = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(userData, { recursive: true, force: true });
  });

  it.skipIf(!binary.path)(title, async () => {
    const app = await electron.launch({
      executablePath: binary.path,
      args: [packageDir, `--user-data-dir=${path.join(userData, 'profile')}`, '--no-sandbox'],
      env: { ...process.env, ELECTRON_ENABLE_LOGGING: '1' },
    });
    try {
      const window = await app.firstWindow();
      // The first window exists before its page has committed (about:blank until then): wait for the URL.
      await window.waitForURL(/^app:\/\/renderer\//, { timeout: 30_000 });
      // The renderer has the preload API and no Node.
      expect(await window.evaluate(() => typeof (window as unknown as { desktop?: unknown }).desktop)).toBe('object');
      expect(await window.evaluate(() => typeof (globalThis as unknown as { require?: unknown }).require)).toBe('undefined');
      expect(await window.evaluate(() => typeof (globalThis as unknown as { process?: unknown }).process)).toBe('undefined');
      await window.locator('#server-url').fill(server?.url ?? '');
      await window.locator('#email').fill(TEST_ADMIN.email);
      await window.locator('#password').fill(TEST_ADMIN.password);
      await window.getByRole('button', { name: 'Sign In' }).click();
      await window.getByRole('heading', { name: 'Bulk Upload' }).waitFor();
    } finally {
      await app.close();
    }
  });
});
