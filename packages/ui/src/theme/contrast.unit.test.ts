/** WCAG contrast arithmetic and the brand palette: known ratios, the default brand, refusals, and the style sheet's defaults. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AA_TEXT_CONTRAST,
  brandPalette,
  contrastRatio,
  DARK_SURFACES,
  DEFAULT_BRAND,
  formatRatio,
  paletteCssVariables,
  parseHex,
  readableShade,
  readableTextOn,
  relativeLuminance,
} from './contrast';

describe('contrast arithmetic', () => {
  it('computes WCAG relative luminance and ratios', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 10);
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 10);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    // The figures of issue 22: white on the brand pink, the pink on the near-black background.
    expect(formatRatio(contrastRatio('#ffffff', '#e91e63'))).toBe('4.34:1');
    expect(formatRatio(contrastRatio('#e91e63', '#0e0e11'))).toBe('4.43:1');
    // #767676 on white is the classic lightest grey that passes AA (4.54:1).
    expect(formatRatio(contrastRatio('#767676', '#ffffff'))).toBe('4.54:1');
    expect(contrastRatio('#e91e63', '#fff')).toBe(contrastRatio('#fff', '#e91e63'));
  });

  it('parses short and long hex and refuses other strings', () => {
    expect(parseHex('#f0a')).toEqual([255, 0, 170]);
    expect(parseHex('#E91E63')).toEqual([233, 30, 99]);
    expect(() => parseHex('pink')).toThrow(/not a hex colour/);
    expect(() => parseHex('#e91e6')).toThrow();
  });

  it('picks black or white text, whichever reads', () => {
    expect(readableTextOn('#e91e63')).toBe('#000000');
    expect(readableTextOn('#c2185b')).toBe('#ffffff');
    expect(readableTextOn('#ffeb3b')).toBe('#000000');
    expect(readableTextOn('#1565c0')).toBe('#ffffff');
  });

  it('lightens a colour just enough for dark backgrounds and keeps one that already reads', () => {
    const shade = readableShade('#e91e63', DARK_SURFACES) as string;
    expect(Math.min(...DARK_SURFACES.map((s) => contrastRatio(shade, s)))).toBeGreaterThanOrEqual(AA_TEXT_CONTRAST);
    // One step less would not do: it is the closest passing shade.
    expect(readableShade('#e91e63', DARK_SURFACES, 4.6)).not.toBe(shade);
    expect(readableShade('#ff80ab', DARK_SURFACES)).toBe('#ff80ab');
    // On a light page it darkens.
    expect(relativeLuminance(readableShade('#e91e63', ['#ffffff']) as string)).toBeLessThan(relativeLuminance('#e91e63'));
  });
});

describe('brandPalette', () => {
  it('keeps the spec pink as the brand, with black text on it and a lighter pink for text', () => {
    const result = brandPalette({ brand: DEFAULT_BRAND });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const p = result.palette;
    expect(p.brand).toBe('#e91e63');
    expect(p.onBrand).toBe('#000000');
    expect(contrastRatio(p.onBrand, p.brand)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(p.onBrand, p.brandHover)).toBeGreaterThan(contrastRatio(p.onBrand, p.brand));
    for (const s of DARK_SURFACES) expect(contrastRatio(p.brandText, s)).toBeGreaterThanOrEqual(4.5);
  });

  it('chooses white text on a dark brand and leaves a readable brand unchanged for text', () => {
    const result = brandPalette({ brand: '#6a1b9a' });
    expect(result.ok && result.palette.onBrand).toBe('#ffffff');
    const light = brandPalette({ brand: '#80deea' });
    expect(light.ok && light.palette).toMatchObject({ onBrand: '#000000', brandText: '#80deea' });
  });

  it('accepts hand-set colours that reach 4.5:1', () => {
    const result = brandPalette({ brand: '#c2185b', textOnBrand: '#ffffff', brandText: '#ff80ab' });
    expect(result).toEqual({
      ok: true,
      palette: expect.objectContaining({ brand: '#c2185b', onBrand: '#ffffff', brandText: '#ff80ab' }),
    });
  });

  it('refuses text on the brand below 4.5:1 with the ratio and a colour that passes', () => {
    const result = brandPalette({ brand: '#e91e63', textOnBrand: '#ffffff' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      'theme.textOnBrand #ffffff on theme.brand #e91e63 is 4.34:1; WCAG 2.2 AA needs 4.5:1 for text (#000000 reaches 4.83:1; leave textOnBrand out to have it chosen)',
    ]);
  });

  it('refuses brand-coloured text that does not read on the dark surfaces', () => {
    const result = brandPalette({ brand: '#e91e63', brandText: '#e91e63' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatch(
      /^theme\.brandText #e91e63 on the page backgrounds \(#0e0e11, #18181d, #222229\) is 3\.\d\d:1 at worst; WCAG 2\.2 AA needs 4\.5:1/,
    );
  });

  it('refuses a brand when no text colour reaches 4.5:1 on the surfaces given', () => {
    // Black, white and mid-grey backgrounds at once: no colour at all reaches 4.5:1 on all three.
    const result = brandPalette({ brand: '#e91e63' }, ['#000000', '#ffffff', '#777777']);
    expect(result).toEqual({ ok: false, errors: [expect.stringMatching(/no shade of it reaches 4\.5:1/)] });
  });

  it('refuses what is not a colour', () => {
    expect(brandPalette({ brand: 'hotpink' })).toEqual({ ok: false, errors: ['theme.brand: "hotpink" is not a #rrggbb colour'] });
  });

  it('styles.css defaults are the default brand palette', () => {
    const css = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../styles.css'), 'utf8');
    const result = brandPalette({ brand: DEFAULT_BRAND });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    for (const [name, value] of Object.entries(paletteCssVariables(result.palette))) {
      expect(css, name).toContain(`${name}: ${value};`);
    }
  });
});
