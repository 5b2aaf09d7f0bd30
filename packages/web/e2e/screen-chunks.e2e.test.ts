/**
 * Every screen is its own code chunk (routes.tsx), loaded when the member first opens it. Two ways
 * that load fails, made to happen every time with a proxy that holds or refuses the chunk, in the
 * three engines members use:
 *
 * - The member leaves the page while a screen's chunk is still loading (here: opens the contact
 *   page by address while the registration screen loads). The browser cancels the chunk; Firefox
 *   rejects the import, and the router used to render the "System Error" page and log it (a fresh
 *   clone's CI failed on it in `live-engines.e2e.test.ts`: login's redirect to /videos, then an
 *   immediate visit to a show; 5 of 14 Firefox runs logged it). Nothing may be shown or logged.
 * - The chunk is gone (a deploy replaced the hashed files while the tab was open): the page is
 *   reloaded once, then — the chunk still missing — shows the error page instead of reloading again.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { freePort } from '../../../scripts/freePort.mjs';
import { startTestServer, type TestServer } from '../../api/test/support';
import { ensureBuilt, WEB_DIST } from './browser';
import { type EngineDriver, waitFor } from './engines/journey';
import { itInEachEngine } from './engines/ofThisRun';
import { type HoldingProxy, holdingProxy } from './holdingProxy';

/** The registration screen's own chunk (Vite names it after the page: `Register-<hash>.js`). */
const REGISTER_CHUNK = /^\/assets\/Register-[\w-]+\.js$/;

let server: TestServer;
let proxy: HoldingProxy;

beforeAll(async () => {
  ensureBuilt();
  // The browser reaches the site through the proxy: the site's address is the proxy's.
  const port = await freePort();
  server = await startTestServer('sqlite', { env: { WEB_DIST, PUBLIC_URL: `http://127.0.0.1:${port}` } });
  proxy = await holdingProxy(server.url, port);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

async function onLoginPage(d: EngineDriver): Promise<void> {
  await d.goto(`${proxy.url}/login`);
  await d.evaluate("localStorage.setItem('ageVerified', 'true')");
  await d.goto(`${proxy.url}/login`);
  await waitFor(d, 'the login page', "return document.querySelector('h1')?.textContent === 'Member Login'");
}

describe("a screen's code that fails to load", () => {
  itInEachEngine(
    (engine) => `${engine}: leaving the page while the screen's code loads shows and logs nothing`,
    async (start) => {
      const d = await start();
      try {
        await onLoginPage(d);
        const chunk = proxy.hold(REGISTER_CHUNK);
        await d.click('//main//a[@href="/register"]');
        await chunk.requested;
        // The member goes elsewhere while the registration screen's code is still on its way.
        await d.goto(`${proxy.url}/contact`);
        await waitFor(d, 'the contact page', "return document.body.textContent.includes('Primary contact')");
        chunk.release();
        expect(await d.evaluate<string>('return document.body.textContent')).not.toContain('System Error');
        expect(d.problems()).toEqual([]);
      } finally {
        await d.close();
      }
    },
    60_000,
  );

  itInEachEngine(
    (engine) => `${engine}: a screen whose code is gone reloads the page once, then shows the error page`,
    async (start) => {
      const d = await start();
      try {
        await onLoginPage(d);
        proxy.hold(REGISTER_CHUNK).refuse(404);
        await d.evaluate('window.__firstDocument = true');
        await d.click('//main//a[@href="/register"]');
        await waitFor(d, 'the error page', "return document.querySelector('h1')?.textContent === 'System Error'");
        const after = await d.evaluate<{ path: string; sameDocument: boolean; navigation: string }>(
          `return { path: location.pathname, sameDocument: window.__firstDocument === true,
             navigation: performance.getEntriesByType('navigation')[0].type }`,
        );
        // One reload (a new document, loaded by reloading /register); the second failure showed the error page.
        expect(after).toEqual({ path: '/register', sameDocument: false, navigation: 'reload' });
      } finally {
        await d.close();
      }
    },
    60_000,
  );
});
