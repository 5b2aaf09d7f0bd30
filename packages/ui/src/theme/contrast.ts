/**
 * WCAG 2.2 contrast arithmetic and the brand palette built from it, so a brand colour from the site
 * config can never put unreadable text on the screen: text on the brand colour is black or white
 * (whichever reaches AA), brand-coloured text on the dark surfaces is the brand lightened just enough,
 * and colours a config sets by hand are checked and refused with a message naming the ratio.
 * Pure functions: the API checks the config with them when it loads, the web app applies the result.
 */

/** WCAG 2.2 success criterion 1.4.3 (AA): normal-size text needs 4.5:1 against its background. */
export const AA_TEXT_CONTRAST = 4.5;

/** The dark theme's surfaces (styles.css --bg, --surface, --surface-2) on which brand-coloured text appears. */
export const DARK_SURFACES = ['#0e0e11', '#18181d', '#222229'] as const;

export type Rgb = readonly [number, number, number];

const HEX = /^#([0-9a-f]{6}|[0-9a-f]{3})$/i;

export function isHexColour(value: string): boolean {
  return HEX.test(value);
}

/** `#rrggbb` or `#rgb` → [r, g, b] in 0–255; throws on anything else. */
export function parseHex(hex: string): Rgb {
  const m = HEX.exec(hex.trim());
  if (!m?.[1]) throw new Error(`not a hex colour: ${hex}`);
  const body = m[1];
  const digits = body.length === 3 ? [...body].map((d) => d + d).join('') : body;
  const channel = (i: number) => Number.parseInt(digits.slice(i, i + 2), 16);
  return [channel(0), channel(2), channel(4)];
}

export function toHex(rgb: Rgb): string {
  return `#${rgb
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** Relative luminance (WCAG 2.2 definition; sRGB channels linearised with the 0.04045 threshold). */
export function relativeLuminance(colour: string | Rgb): number {
  const [r, g, b] = typeof colour === 'string' ? parseHex(colour) : colour;
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Contrast ratio (L1 + 0.05) / (L2 + 0.05), from 1 to 21, order-independent. */
export function contrastRatio(a: string | Rgb, b: string | Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** A ratio as people quote it: 4.34:1 (rounded down, so a printed 4.50:1 really passes). */
export function formatRatio(ratio: number): string {
  return `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`;
}

/** `colour` moved a fraction `t` (0–1) of the way to `towards`, channel by channel. */
export function mix(colour: string, towards: string, t: number): string {
  const [r1, g1, b1] = parseHex(colour);
  const [r2, g2, b2] = parseHex(towards);
  return toHex([r1 + (r2 - r1) * t, g1 + (g2 - g1) * t, b1 + (b2 - b1) * t]);
}

/** Black or white, whichever contrasts more with `background` (one of them always reaches 4.58:1). */
export function readableTextOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio('#000000', background) >= contrastRatio('#ffffff', background) ? '#000000' : '#ffffff';
}

/**
 * The shade of `colour` closest to it that reaches `min` against every one of `backgrounds`: the
 * colour itself when it already does, else mixed towards white (dark backgrounds) or black (light
 * ones) in 1 % steps. Undefined when even pure white/black does not reach `min`.
 */
export function readableShade(colour: string, backgrounds: readonly string[], min = AA_TEXT_CONTRAST): string | undefined {
  const worst = (c: string) => Math.min(...backgrounds.map((bg) => contrastRatio(c, bg)));
  const darkest = Math.max(...backgrounds.map((bg) => relativeLuminance(bg)));
  const target = darkest < 0.18 ? '#ffffff' : '#000000';
  for (let step = 0; step <= 100; step++) {
    const shade = step === 0 ? toHex(parseHex(colour)) : mix(colour, target, step / 100);
    if (worst(shade) >= min) return shade;
  }
  return undefined;
}

/** The `theme` block of the site config. */
export interface BrandColours {
  /** The brand colour: backgrounds of primary buttons, badges, accents. */
  brand: string;
  /** Text on the brand colour; computed (black or white) when absent. */
  textOnBrand?: string;
  /** Brand-coloured text (links, prices, active tabs) on the dark surfaces; computed from `brand` when absent. */
  brandText?: string;
}

/** The colours the style sheet uses (CSS custom properties --brand, --on-brand, --brand-text, --brand-hover). */
export interface BrandPalette {
  brand: string;
  onBrand: string;
  brandText: string;
  /** The brand moved 10 % away from `onBrand`: a hover fill whose text contrast only grows. */
  brandHover: string;
}

/** The palette as CSS custom properties (what the web app sets on :root). */
export function paletteCssVariables(p: BrandPalette): Record<string, string> {
  return { '--brand': p.brand, '--on-brand': p.onBrand, '--brand-text': p.brandText, '--brand-hover': p.brandHover };
}

export type BrandPaletteResult = { ok: true; palette: BrandPalette } | { ok: false; errors: string[] };

/**
 * Checks a brand's colours against WCAG 2.2 AA (4.5:1 for text) and completes what is not set. Every
 * refusal names the pair, its ratio and a colour that would pass.
 */
export function brandPalette(colours: BrandColours, surfaces: readonly string[] = DARK_SURFACES): BrandPaletteResult {
  const errors: string[] = [];
  for (const key of ['brand', 'textOnBrand', 'brandText'] as const) {
    const v = colours[key];
    if (v !== undefined && !isHexColour(v)) errors.push(`theme.${key}: "${v}" is not a #rrggbb colour`);
  }
  if (errors.length) return { ok: false, errors };
  const brand = toHex(parseHex(colours.brand));

  let onBrand: string;
  if (colours.textOnBrand !== undefined) {
    onBrand = toHex(parseHex(colours.textOnBrand));
    const ratio = contrastRatio(onBrand, brand);
    if (ratio < AA_TEXT_CONTRAST) {
      const better = readableTextOn(brand);
      errors.push(
        `theme.textOnBrand ${onBrand} on theme.brand ${brand} is ${formatRatio(ratio)}; WCAG 2.2 AA needs ${AA_TEXT_CONTRAST}:1 for text ` +
          `(${better} reaches ${formatRatio(contrastRatio(better, brand))}; leave textOnBrand out to have it chosen)`,
      );
    }
  } else {
    onBrand = readableTextOn(brand);
    const ratio = contrastRatio(onBrand, brand);
    if (ratio < AA_TEXT_CONTRAST)
      errors.push(`theme.brand ${brand}: no text colour reaches ${AA_TEXT_CONTRAST}:1 on it (best ${onBrand}, ${formatRatio(ratio)})`);
  }

  let brandText: string | undefined;
  if (colours.brandText !== undefined) {
    brandText = toHex(parseHex(colours.brandText));
    const worst = Math.min(...surfaces.map((s) => contrastRatio(brandText as string, s)));
    if (worst < AA_TEXT_CONTRAST) {
      const better = readableShade(brand, surfaces);
      errors.push(
        `theme.brandText ${brandText} on the page backgrounds (${surfaces.join(', ')}) is ${formatRatio(worst)} at worst; ` +
          `WCAG 2.2 AA needs ${AA_TEXT_CONTRAST}:1 for text${better ? ` (${better} reaches it; leave brandText out to have it chosen)` : ''}`,
      );
    }
  } else {
    brandText = readableShade(brand, surfaces);
    if (!brandText)
      errors.push(`theme.brand ${brand}: no shade of it reaches ${AA_TEXT_CONTRAST}:1 on the page backgrounds (${surfaces.join(', ')})`);
  }
  if (errors.length || !brandText) return { ok: false, errors };
  const brandHover = mix(brand, relativeLuminance(onBrand) < relativeLuminance(brand) ? '#ffffff' : '#000000', 0.1);
  return { ok: true, palette: { brand, onBrand, brandText, brandHover } };
}

/** The default brand (spec: "The brand pink colour is #e91e63"). */
export const DEFAULT_BRAND = '#e91e63';
