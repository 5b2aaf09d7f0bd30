/**
 * Puts a brand palette (GET /api/site `theme`, already checked for contrast by the server) on the
 * page as CSS custom properties. CSSOM writes are allowed by the site's CSP (no inline style).
 */
import { useEffect } from 'react';
import { type BrandPalette, paletteCssVariables } from './contrast';

export function applyBrandPalette(palette: BrandPalette, root: HTMLElement = document.documentElement): void {
  for (const [name, value] of Object.entries(paletteCssVariables(palette))) root.style.setProperty(name, value);
}

/** Applies `palette` whenever it changes; until it is known the style sheet's defaults (the default brand) hold. */
export function useBrandPalette(palette: BrandPalette | undefined): void {
  const key = palette ? JSON.stringify(palette) : '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the palette's value, not its identity
  useEffect(() => {
    if (palette) applyBrandPalette(palette);
  }, [key]);
}
