/**
 * Entitlement per rendition (pure): the tallest HLS rendition a viewer may watch, from the site
 * config's `media` section. A subscriber gets their plan's height (monthly 1080, annual 2160 by
 * default); an approved member without a subscription gets `freeMaxHeight` (720) on free videos.
 * Whether they may watch at all is the access decision's call, made before this.
 */
import type { SiteConfig } from '../config/site.js';
import type { RenditionInfo } from '../transcode/index.js';

export interface EntitlementInput {
  accessLevel: string;
  /** The viewer's active plan, or null without one. */
  plan: 'monthly' | 'annual' | null;
}

/**
 * @example maxRenditionHeight({ accessLevel: 'premium', plan: 'monthly' }, site.media) // 1080
 */
export function maxRenditionHeight(input: EntitlementInput, media: SiteConfig['media']): number {
  const byPlan = input.plan ? media.maxHeightByPlan[input.plan] : 0;
  if (input.accessLevel === 'free') return Math.max(byPlan, media.freeMaxHeight);
  return byPlan;
}

/** The renditions of a ladder the viewer may watch (at least the smallest, when the access decision allowed the video). */
export function entitledRenditions(renditions: readonly RenditionInfo[], maxHeight: number): RenditionInfo[] {
  const allowed = renditions.filter((r) => r.height <= maxHeight);
  if (allowed.length > 0 || renditions.length === 0) return allowed;
  const smallest = [...renditions].sort((a, b) => a.height - b.height)[0];
  return smallest ? [smallest] : [];
}
