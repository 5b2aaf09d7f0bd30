/** The site config's brand colours: computed for AA contrast when valid, refused with the ratio when not. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SITE_CONFIG } from '../../test/siteConfig.js';
import { loadSiteConfig } from './site.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-theme-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function withTheme(theme: unknown): string {
  const raw = JSON.parse(fs.readFileSync(EXAMPLE_SITE_CONFIG, 'utf8'));
  if (theme === undefined) delete raw.theme;
  else raw.theme = theme;
  const file = path.join(dir, `site-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(raw));
  return file;
}

describe('site config theme', () => {
  it('computes readable colours for the example brand, and for a config without a theme', () => {
    for (const file of [EXAMPLE_SITE_CONFIG, withTheme(undefined)]) {
      expect(loadSiteConfig(file).config.theme).toEqual({
        brand: '#e91e63',
        onBrand: '#000000',
        brandText: '#ee4d84',
        brandHover: '#eb3573',
      });
    }
    expect(loadSiteConfig(withTheme({ brand: '#1565c0' })).config.theme.onBrand).toBe('#ffffff');
  });

  it('refuses text on the brand below 4.5:1 with a message naming the pair and the ratio', () => {
    const file = withTheme({ brand: '#e91e63', textOnBrand: '#ffffff' });
    expect(() => loadSiteConfig(file)).toThrow(
      `Invalid site config ${file}:\n  theme: theme.textOnBrand #ffffff on theme.brand #e91e63 is 4.34:1; WCAG 2.2 AA needs 4.5:1 for text (#000000 reaches 4.83:1; leave textOnBrand out to have it chosen)`,
    );
  });

  it('refuses brand-coloured text that does not read on the dark pages, and colours that are not colours', () => {
    expect(() => loadSiteConfig(withTheme({ brand: '#e91e63', brandText: '#e91e63' }))).toThrow(
      /theme\.brandText #e91e63 on the page backgrounds .* WCAG 2\.2 AA needs 4\.5:1/,
    );
    expect(() => loadSiteConfig(withTheme({ brand: 'pink' }))).toThrow(/theme\.brand: "pink" is not a #rrggbb colour/);
  });
});

function withBitcoin(bitcoin: Record<string, unknown>): string {
  const raw = JSON.parse(fs.readFileSync(EXAMPLE_SITE_CONFIG, 'utf8'));
  raw.bitcoin = { ...raw.bitcoin, ...bitcoin };
  const file = path.join(dir, `site-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(raw));
  return file;
}

describe('site config bitcoin', () => {
  it('defaults: 1 confirmation, no autoVerify, no underpayment tolerance; regtest is a network', () => {
    expect(loadSiteConfig(EXAMPLE_SITE_CONFIG).config.bitcoin).toMatchObject({
      confirmations: 1,
      autoVerify: false,
      underpaymentTolerancePercent: 0,
    });
    expect(loadSiteConfig(withBitcoin({ network: 'regtest' })).config.bitcoin.network).toBe('regtest');
  });

  it('refuses autoVerify with one fixed address (the chain cannot tell whose payment is whose)', () => {
    expect(() => loadSiteConfig(withBitcoin({ autoVerify: true }))).toThrow(/bitcoin\.autoVerify: bitcoin\.autoVerify needs bitcoin\.xpub/);
  });
});
