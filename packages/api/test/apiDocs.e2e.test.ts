/**
 * The API reference at /api/docs in Debian's Chromium: without an admin's token it says the
 * document is for admins; with the token the web app keeps in localStorage it renders every
 * operation. Every request stays on this server (no CDN) and the page's CSP refuses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from './adminToken.js';
import { startTestServer, type TestServer } from './harness.js';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../artifacts/screenshots');

describe('API reference UI', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the document for a signed-in admin, from this server only, within its CSP', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const refusals: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    // Every CSP violation the page reports (the console line alone can be missed).
    await page.addInitScript(() => {
      const w = globalThis as unknown as {
        cspViolations: string[];
        addEventListener: (t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void) => void;
      };
      w.cspViolations = [];
      w.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refusals.push(m.text());
    });

    await page.goto(`${server.url}/api/docs`);
    await page.getByText('The API document is for admins').waitFor({ timeout: 15_000 });

    const token = await adminToken(server);
    // What the web app does at login: the access token under its session key (packages/ui/src/api/session.ts).
    await page.evaluate(
      (t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('authToken', t),
      token,
    );
    await page.reload();
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    // Swagger UI renders the tags one after another: wait for the whole document, not the first tag.
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 30_000 }).toBeGreaterThan(50);
    await page.getByText('POST/payments/submit-bitcoin-payment').or(page.getByText('/payments/submit-bitcoin-payment')).first().waitFor();
    // Open one operation: its parameters, body and answer schemas render too.
    await page.locator('.opblock-summary').filter({ hasText: '/payments/submit-bitcoin-payment' }).first().click();
    await page.getByText('transactionHash').first().waitFor({ timeout: 15_000 });
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'api-docs.png') });

    expect(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'))).toEqual([]);
    expect(refusals).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  }, 90_000);
});
