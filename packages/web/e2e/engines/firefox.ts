/**
 * The journey's driver for Firefox ESR: Debian's firefox-esr through puppeteer-core over WebDriver
 * BiDi (no geckodriver: Firefox speaks BiDi itself). Console errors and uncaught errors come over
 * BiDi's log events; CSP violations through the probe, a BiDi preload script (before any page script).
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type EngineDriver, expression, PROBE } from './journey';

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

const xpath = (s: string) => (s.startsWith('//') ? `::-p-xpath(${s})` : s);

export async function firefoxDriver(viewport = { width: 1280, height: 900 }): Promise<EngineDriver> {
  const browser: Browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX_PATH,
    headless: true,
    defaultViewport: viewport,
  });
  const problems: string[] = [];
  const page: Page = await browser.newPage();
  await page.evaluateOnNewDocument(PROBE);
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${page.url()}: console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e instanceof Error ? e.message : String(e)}`));
  const version = await browser.version();
  return {
    name: version.replace(/^firefox\//i, 'Firefox ESR '),
    probeAfterLoad: false,
    async goto(url) {
      await page.goto(url);
    },
    async type(selector, text) {
      await page.locator(xpath(selector)).fill(text);
    },
    async click(selector) {
      await page.locator(xpath(selector)).click();
    },
    async selectOption(select, label) {
      const value = await page.$eval(
        select,
        (el, l) => Array.from((el as HTMLSelectElement).options).find((o) => o.textContent?.startsWith(l))?.value,
        label,
      );
      if (value === undefined) throw new Error(`no option ${label} in ${select}`);
      await page.select(select, value);
    },
    evaluate: <T>(body: string, arg?: unknown) => page.evaluate(expression(body, arg)) as Promise<T>,
    problems: () => problems,
    close: () => browser.close(),
  };
}
