/** Shared e2e plumbing: Debian's Chromium through playwright-core, screenshots under artifacts/. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(WEB_DIR, 'dist');
export const SCREENSHOT_DIR = path.resolve(WEB_DIR, '../../artifacts/screenshots');

/**
 * Debian's `chromium-headless-shell`: the same Chromium build (Blink, V8, media) without the full
 * browser's UI layers, the binary Playwright itself runs for headless tests. The full `chromium`
 * in headless mode spent 22–30 % more CPU on the same files (docs/browsers-and-runtime.md).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/**
 * Moves the page to `path` inside the app, as its links do: the router reads the new location on
 * popstate. The document is not loaded again (no second download, parse and start of the app, about
 * a second of Chromium's CPU a page), so the age gate's and the session's state stay as they were.
 */
export async function navigateInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.waitForURL((url) => `${url.pathname}${url.search}` === path);
}

/** A context whose pages are past the 18+ age gate (the suites that test the gate open plain ones). */
export async function ageVerifiedContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext(options);
  await ctx.addInitScript(() => {
    if (location.protocol.startsWith('http')) localStorage.setItem('ageVerified', 'true');
  });
  return ctx;
}

/** Opens `${base}/login`, fills the sign-in form and sends it (what follows is the caller's to wait for). */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The newest modification time under `dir` (source files only). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (/\.(tsx?|css|html)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the production bundle when it is missing or older than the web or ui sources. */
export function ensureBuilt(): void {
  const index = path.join(WEB_DIST, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(WEB_DIR, 'src')),
    newestMtime(path.join(WEB_DIR, '../ui/src')),
    fs.statSync(path.join(WEB_DIR, 'index.html')).mtimeMs,
  );
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  // vitest sets NODE_ENV=test, which would make Vite bundle React's development build (and blow the size budget).
  execFileSync('npx', ['vite', 'build'], { cwd: WEB_DIR, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
}

/**
 * Content-Security-Policy violations in every page of `ctx`, as they happen: the documents'
 * `securitypolicyviolation` events (reported through a binding installed before any page script)
 * and the console's "Refused to …" / "Content Security Policy" messages. Tests assert it stays empty.
 */
export async function collectCspViolations(ctx: BrowserContext, into: string[] = []): Promise<string[]> {
  await ctx.exposeBinding('__reportCspViolation', ({ page }, text: string) => {
    into.push(`${page.url()}: ${text}`);
  });
  await ctx.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __reportCspViolation: (t: string) => void }).__reportCspViolation;
      report(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`);
    });
  });
  ctx.on('console', (msg) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect|frame|create)/i.test(msg.text())) {
      into.push(`${msg.page()?.url()}: console ${msg.type()}: ${msg.text()}`);
    }
  });
  return into;
}
