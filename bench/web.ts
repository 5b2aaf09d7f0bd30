/**
 * Web figures in headless Chromium (playwright-core, /usr/bin/chromium) against the production
 * bundle served by the real server on loopback: the JavaScript `/` loads (gzipped, the files
 * index.html names plus the lazy chunks the landing page pulls), and the time from navigation until
 * the age gate is visible to a first-time visitor. No reference beside them: absolute budgets
 * (≤ 150 KB, ≤ 1 s).
 *
 *   npx tsx bench/web.ts [--quick]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt, launchChromium, WEB_DIST } from '../packages/web/e2e/browser.js';
// @ts-expect-error plain .mjs helper without types
import { startBenchServer } from './lib/benchServer.mjs';
// @ts-expect-error plain .mjs helper without types
import { median, QUICK, report } from './lib/report.mjs';

ensureBuilt();
const gz = (file: string) => gzipSync(fs.readFileSync(path.join(WEB_DIST, file)), { level: 9 }).length;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-web-'));
const server = await startBenchServer(work, { WEB_DIST });
const browser = await launchChromium();
try {
  // First-load JS, as a returning visitor (age already confirmed) sees the landing page.
  const ctx = await browser.newContext();
  await ctx.addInitScript(() => {
    if (location.protocol.startsWith('http')) localStorage.setItem('ageVerified', 'true');
  });
  const page = await ctx.newPage();
  const scripts = new Set<string>();
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/assets/') && u.pathname.endsWith('.js')) scripts.add(u.pathname.slice(1));
  });
  await page.goto(server.url, { waitUntil: 'networkidle' });
  const kb = [...scripts].reduce((s, f) => s + gz(f), 0) / 1024;
  report({ figure: `Web: first-load JS of / (${scripts.size} files, gzipped)`, ours: kb, unit: 'KB', target: '≤ 150 KB', pass: kb <= 150 });
  await ctx.close();

  // Time to the age gate, a first-time visitor each time (fresh context: no cache, no storage).
  const times: number[] = [];
  for (let i = 0; i < (QUICK ? 3 : 10); i++) {
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    const t = performance.now();
    await p.goto(server.url, { waitUntil: 'commit' });
    await p.getByRole('heading', { name: 'Adults Only' }).waitFor({ state: 'visible' });
    times.push(performance.now() - t);
    await fresh.close();
  }
  const ms = median(times);
  report({
    figure: 'Web: time until the age gate is visible (fresh visitor, loopback)',
    ours: ms,
    unit: 'ms',
    target: '≤ 1,000 ms',
    pass: ms <= 1000,
  });
} finally {
  await browser.close();
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  fs.rmSync(work, { recursive: true, force: true });
}
