/** Shared e2e plumbing: Debian's Chromium through playwright-core, screenshots under artifacts/. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(WEB_DIR, 'dist');
export const SCREENSHOT_DIR = path.resolve(WEB_DIR, '../../artifacts/screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Builds the production bundle when it is missing (the suite always runs against `vite build`). */
export function ensureBuilt(): void {
  if (fs.existsSync(path.join(WEB_DIST, 'index.html'))) return;
  execFileSync('npx', ['vite', 'build'], { cwd: WEB_DIR, stdio: 'inherit' });
}
