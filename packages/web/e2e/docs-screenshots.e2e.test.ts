/**
 * The README's screenshots are what the site shows now (issue 28: they showed white text on the
 * brand pink long after the site turned it black). The seeded site of docsScreenshots.ts is
 * photographed in Chromium and compared with docs/images/*.png; a difference beyond font smoothing
 * fails with the command that regenerates them. With UPDATE_DOCS_SCREENSHOTS=1 (what
 * `node scripts/docs-screenshots.mjs` sets) the test writes them instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, tmpDir } from '../../api/test/support';
import { launchChromium, SCREENSHOT_DIR } from './browser';
import {
  compareScreenshots,
  DOCS_IMAGES,
  DOCS_SCREENSHOTS,
  type DocsScreenshot,
  MAX_DIFFERING_PIXELS,
  REGENERATE,
  seedDocsSite,
  takeDocsScreenshots,
} from './docsScreenshots';

const update = process.env.UPDATE_DOCS_SCREENSHOTS === '1';
const OUT = path.join(SCREENSHOT_DIR, 'docs');
const media = tmpDir('web-e2e-docs-');

let server: TestServer;
let browser: Browser;
let shots: Record<DocsScreenshot, Buffer>;

describe('the documentation screenshots', () => {
  beforeAll(async () => {
    server = await seedDocsSite(media);
    browser = await launchChromium();
    shots = await takeDocsScreenshots(browser, server);
    fs.mkdirSync(OUT, { recursive: true });
    for (const name of DOCS_SCREENSHOTS) fs.writeFileSync(path.join(OUT, `${name}.png`), shots[name]);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(media, { recursive: true, force: true });
  });

  it('are taken twice alike: the seeded site and both clocks are fixed', async () => {
    const again = await takeDocsScreenshots(browser, server);
    for (const name of DOCS_SCREENSHOTS) {
      const { differing } = compareScreenshots(again[name], shots[name]);
      console.info(`${name}: ${differing} pixels differ between two takes`);
      expect(differing, name).toBeLessThanOrEqual(MAX_DIFFERING_PIXELS);
    }
  });

  it('the comparison catches the contrast bug of issue 28: the same pages with white text on the brand pink', async () => {
    const old = await takeDocsScreenshots(browser, server, ':root { --on-brand: #fff !important; }');
    for (const name of DOCS_SCREENSHOTS) {
      const { differing } = compareScreenshots(old[name], shots[name]);
      console.info(`${name}: ${differing} pixels differ with white text on the brand pink`);
      expect(differing, name).toBeGreaterThan(MAX_DIFFERING_PIXELS);
    }
  });

  it.each(DOCS_SCREENSHOTS)('docs/images/%s.png shows what the site shows now', (name) => {
    const committed = path.join(DOCS_IMAGES, `${name}.png`);
    if (update) {
      fs.writeFileSync(committed, shots[name]);
      return;
    }
    const diff = compareScreenshots(shots[name], fs.readFileSync(committed));
    if (diff.diffPng) fs.writeFileSync(path.join(OUT, `${name}.diff.png`), diff.diffPng);
    const why = diff.sizeMismatch ? 'a different size' : `${diff.differing} of ${diff.total} pixels differ`;
    expect(
      diff.differing,
      `docs/images/${name}.png is not what the site shows now (${why}; the new one and the difference are in ${path.relative(process.cwd(), OUT)}). Regenerate with: ${REGENERATE}`,
    ).toBeLessThanOrEqual(MAX_DIFFERING_PIXELS);
  });
});
