/**
 * The API reference at /api/docs in Debian's Chromium: without an admin's token it says the
 * document is for admins; with the token the web app keeps in localStorage it renders every
 * operation of openapi.json, the runners' machine API included. Every request stays on this
 * server (no CDN) and the page's CSP refuses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer } from './harness.js';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../artifacts/screenshots');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The browser's window, as much of it as these scripts use (this package compiles without the DOM library). */
interface Win {
  scrollY: number;
  innerHeight: number;
  scrollTo(x: number, y: number): void;
  scrollBy(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): number;
  document: { documentElement: { scrollHeight: number } };
}

/** Scrolls to the top, or down by 90 % of a window (the rows at the seam are in both views); true when the bottom was already in view. */
function scroll(page: Page, to: 'top' | 'down'): Promise<boolean> {
  return page.evaluate((to) => {
    const w = globalThis as unknown as Win;
    if (to === 'top') w.scrollTo(0, 0);
    else if (w.scrollY + w.innerHeight >= w.document.documentElement.scrollHeight - 2) return true;
    else w.scrollBy(0, w.innerHeight * 0.9);
    return false;
  }, to);
}

/** Two animation frames: a scroll's re-render has run. */
function frames(page: Page): Promise<unknown> {
  return page.evaluate(
    () =>
      new Promise((r) =>
        (globalThis as unknown as Win).requestAnimationFrame(() => (globalThis as unknown as Win).requestAnimationFrame(() => r(true))),
      ),
  );
}

/** `METHOD path` of the operations Swagger UI has in the page now. */
function renderedOperations(page: Page): Promise<string[]> {
  return page.locator('.opblock').evaluateAll((blocks) =>
    blocks.map((b) => {
      const method = b.querySelector('.opblock-summary-method')?.textContent?.trim().toUpperCase();
      return `${method} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`;
    }),
  );
}

/**
 * Scrolls the page from the top to the bottom, most of a window at a time, and returns every operation
 * rendered on the way. Past 150 rows Swagger UI 5.35 keeps only the rows near the viewport in the
 * page (a window virtualizer), so a count at any one moment sees a screenful, never the document.
 */
async function operationsScrolledThrough(page: Page): Promise<Set<string>> {
  const seen = new Set<string>();
  await scroll(page, 'top');
  for (let step = 0; step < 400; step++) {
    // Settled: the rows in the page stay the same over two animation frames after the scroll.
    let before = '';
    for (let i = 0; i < 50; i++) {
      await frames(page);
      const now = (await renderedOperations(page)).join('\n');
      if (now === before) break;
      before = now;
    }
    for (const op of await renderedOperations(page)) seen.add(op);
    if (await scroll(page, 'down')) break;
  }
  return seen;
}

describe('API reference UI', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await chromium.launch({
      // Chromium's headless shell, as the web suites run it (packages/web/e2e/browser.ts).
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
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

    // What a signed-in admin's browser holds (issue 42: the token lives in memory only): the refresh
    // and CSRF cookies of a sign-in, which the page exchanges for its token.
    const login = await apiClient(server.url).post('/auth/login', TEST_ADMIN);
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = (login.body.data as { token: string }).token;
    await page.context().addCookies(
      login.headers.getSetCookie().map((line) => {
        const [pair = ''] = line.split(';');
        const i = pair.indexOf('=');
        const cookie = { name: pair.slice(0, i).trim(), value: pair.slice(i + 1).trim(), url: server.url };
        return cookie.name === 'refresh_token'
          ? { ...cookie, url: `${server.url}/api/auth`, httpOnly: true, sameSite: 'Strict' as const }
          : cookie;
      }),
    );
    await page.reload();
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });

    // Every operation of the document is on the page: scrolled through from top to bottom.
    const doc = (await (await fetch(`${server.url}/api/openapi.json`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.length).toBeGreaterThan(100);
    expect(documented.some((op) => op.includes(' /runners/'))).toBe(true);
    const shown = await operationsScrolledThrough(page);
    expect([...shown].sort()).toEqual([...documented].sort());

    // Back up to the payment operation (rendered again once near the viewport).
    await scroll(page, 'top');
    const payment = page.locator('.opblock-summary-path[data-path="/payments/submit-bitcoin-payment"]');
    for (let step = 0; step < 400 && (await payment.count()) === 0; step++) {
      await scroll(page, 'down');
      await frames(page);
    }
    await payment.first().scrollIntoViewIfNeeded();
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
