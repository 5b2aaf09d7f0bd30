/**
 * The code-splitting budget: the JavaScript a visitor's browser loads for `/` (the files index.html
 * names plus the lazy chunks the landing page pulls) stays under 150 KB gzipped, and none of it is
 * admin, player or chart code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, WEB_DIST } from './browser';

const BUDGET_BYTES = 150 * 1024;

const gz = (file: string) => gzipSync(fs.readFileSync(path.join(WEB_DIST, file)), { level: 9 }).length;

describe('first load of /', () => {
  let server: TestServer;
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('index.html loads under 150 KB of gzipped JavaScript', () => {
    const html = fs.readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
    const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
    const total = files.reduce((s, f) => s + gz(f), 0);
    console.log(`index.html JS: ${files.length} files, ${(total / 1024).toFixed(1)} KB gzipped`);
    expect(total).toBeLessThan(BUDGET_BYTES);
  });

  it('the landing page in Chromium loads no admin, player or chart chunk', async () => {
    const browser = await launchChromium();
    try {
      const ctx = await ageVerifiedContext(browser);
      const page = await ctx.newPage();
      const scripts: string[] = [];
      page.on('response', (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith('/assets/') && u.pathname.endsWith('.js')) scripts.push(u.pathname.slice(1));
      });
      await page.goto(server.url, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { name: 'Featured Videos' }).waitFor();
      const total = scripts.reduce((s, f) => s + gz(f), 0);
      console.log(
        `/ in Chromium: ${scripts.length} JS files, ${(total / 1024).toFixed(1)} KB gzipped: ${scripts.map((s) => path.basename(s)).join(', ')}`,
      );
      expect(total).toBeLessThan(BUDGET_BYTES);
      expect(scripts.filter((s) => /Admin|AnalyticsCharts|SecurePlayer|Subscription|hls/.test(s))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
