/**
 * The engines a three-engine file drives in this vitest project. vitest.config.ts runs each such
 * file in two projects: `e2e`, with E2E_ENGINES=Chromium,Firefox ESR, beside the other browser
 * files; and `e2e-alone`, with E2E_ENGINES=WebKitGTK, one file at a time after them
 * (WebKitWebDriver fails under load, Chromium and Firefox do not: docs/browsers-and-runtime.md,
 * "WebKitGTK under load"). Unset, the file drives all three.
 */
import { it } from 'vitest';
import { chromiumDriver } from './chromium';
import { firefoxDriver } from './firefox';
import type { EngineDriver } from './journey';
import { webkitDriver } from './webkit';

export type EngineName = 'Chromium' | 'Firefox ESR' | 'WebKitGTK';

const DRIVERS: Record<EngineName, () => Promise<EngineDriver>> = {
  Chromium: () => chromiumDriver(),
  'Firefox ESR': () => firefoxDriver(),
  WebKitGTK: () => webkitDriver(),
};

function enginesOfThisRun(): { name: EngineName; start: () => Promise<EngineDriver> }[] {
  const listed = process.env.E2E_ENGINES?.split(',').map((n) => n.trim());
  const names = (listed ?? Object.keys(DRIVERS)) as EngineName[];
  const unknown = names.filter((n) => !(n in DRIVERS));
  if (unknown.length > 0) throw new Error(`E2E_ENGINES names ${unknown.join(', ')}; the engines are ${Object.keys(DRIVERS).join(', ')}`);
  return names.map((name) => ({ name, start: DRIVERS[name] }));
}

/** One test per engine of this run, titled by `title`, given the engine's driver start. */
export function itInEachEngine(
  title: (engine: EngineName) => string,
  test: (start: () => Promise<EngineDriver>) => Promise<void>,
  timeout?: number,
): void {
  for (const engine of enginesOfThisRun()) it(title(engine.name), () => test(engine.start), timeout);
}
