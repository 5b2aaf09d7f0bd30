/** The journey's driver for Chromium: Debian's chromium through playwright-core (the suites' usual browser). */
import type { Browser, Page } from 'playwright-core';
import { collectCspViolations, launchChromium } from '../browser';
import { type EngineDriver, expression, PROBE } from './journey';

export async function chromiumDriver(viewport = { width: 1280, height: 900 }): Promise<EngineDriver> {
  const browser: Browser = await launchChromium();
  const ctx = await browser.newContext({ viewport });
  const problems: string[] = [];
  await collectCspViolations(ctx, problems);
  await ctx.addInitScript({ content: PROBE });
  const page: Page = await ctx.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${page.url()}: console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  const version = browser.version();
  return {
    name: `Chromium ${version}`,
    probeAfterLoad: false,
    async goto(url) {
      await page.goto(url);
    },
    async type(selector, text) {
      await page.locator(selector).fill(text);
    },
    async click(selector) {
      await page.locator(selector).click();
    },
    async selectOption(select, label) {
      const index = await page
        .locator(select)
        .evaluate((el, l) => Array.from((el as HTMLSelectElement).options).findIndex((o) => o.textContent?.startsWith(l)), label);
      if (index < 0) throw new Error(`no option ${label} in ${select}`);
      await page.locator(select).selectOption({ index });
    },
    evaluate: (body, arg) => page.evaluate(expression(body, arg)),
    problems: () => problems,
    close: () => browser.close(),
  };
}
