/**
 * axe-core (WCAG 2.0, 2.1 and 2.2, levels A and AA) in a Playwright page. The site's CSP forbids
 * inline script, so axe is injected into contexts made with `bypassCSP: true` (`axeContext`); the
 * CSP itself is checked by the other suites' `collectCspViolations`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule tags axe runs: every WCAG A and AA success criterion it can test, 2.0 to 2.2. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/**
 * Waits until every CSS transition and finite animation on the page has ended, so that colours are
 * read as they settle (a button's hover fade, the phone menu sliding in). An endless one (a
 * spinner) never ends and is not waited for. `getAnimations()` brings styles up to date first, so
 * a transition that the last click started is among them.
 */
export async function transitionsDone(page: Page, timeout = 5000): Promise<void> {
  await page.waitForFunction(
    () => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY),
    null,
    { timeout },
  );
}

export function axeContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ ...options, bypassCSP: true });
}

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * Runs axe on the page as it is now and returns one line per failing element:
 * `label: rule-id (impact) target — help / what failed`. Empty when the page passes.
 */
export async function axeViolations(page: Page, label: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations;
  }, WCAG_TAGS);
  return (violations as AxeViolation[]).flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${label}: ${v.id} (${v.impact}) ${JSON.stringify(n.target)} — ${v.help}${n.failureSummary ? ` / ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`,
    ),
  );
}
