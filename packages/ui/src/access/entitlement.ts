/**
 * Entitlement per rendition (pure), the only copy: the tallest HLS rendition a viewer may watch, from
 * the site config's `media` section (GET /api/site `media`). A subscriber gets their plan's height
 * (monthly 1080, annual 2160 by default); an approved member without a subscription gets
 * `freeMaxHeight` (720) on free videos. The API enforces it on the stream (streaming/entitlement.ts
 * re-exports it); the web app says what it allows (the detail page's qualities, the quality claims of
 * the landing, /videos and the plan cards), so the two cannot disagree. Whether a viewer may watch at
 * all is the access decision's call (accessDecision.ts), made before this.
 */

export type EntitledPlan = 'monthly' | 'annual';

/** The site config's `media` section. */
export interface MediaCaps {
  maxHeightByPlan: { monthly: number; annual: number };
  freeMaxHeight: number;
}

export interface EntitlementInput {
  accessLevel: string;
  /** The viewer's active plan, or null without one (a visitor, a member without a subscription). */
  plan: EntitledPlan | null;
}

/** A rendition's height from which it is called 4K (ultra HD). */
export const UHD_HEIGHT = 2160;

const PLANS: readonly EntitledPlan[] = ['monthly', 'annual'];

/**
 * @example maxRenditionHeight({ accessLevel: 'premium', plan: 'monthly' }, site.media) // 1080
 */
export function maxRenditionHeight(input: EntitlementInput, media: MediaCaps): number {
  const byPlan = input.plan ? media.maxHeightByPlan[input.plan] : 0;
  if (input.accessLevel === 'free') return Math.max(byPlan, media.freeMaxHeight);
  return byPlan;
}

/** The renditions of a ladder the viewer may watch (at least the smallest, when the access decision allowed the video). */
export function entitledRenditions<R extends { height: number }>(renditions: readonly R[], maxHeight: number): R[] {
  const allowed = renditions.filter((r) => r.height <= maxHeight);
  if (allowed.length > 0 || renditions.length === 0) return allowed;
  const smallest = [...renditions].sort((a, b) => a.height - b.height)[0];
  return smallest ? [smallest] : [];
}

/**
 * A rendition name's height, null for a name that is not one.
 * @example qualityHeight('1080p') // 1080
 */
export function qualityHeight(name: string): number | null {
  const m = /^(\d+)p$/.exec(name.trim());
  return m ? Number(m[1]) : null;
}

/** One of a video's qualities as a viewer reads it: theirs to play, or the cheapest plan that plays it. */
export interface QualityOffer {
  name: string;
  playable: boolean;
  /** When not playable: the cheapest plan that plays it (null: no plan does, so it is not offered at all). */
  plan: EntitledPlan | null;
}

/**
 * The qualities of a video (its rendition names, e.g. ['2160p', '1080p']) as this audience may play
 * them: the ones within their cap (what GET /api/videos/{id}/stream answers them), and the others
 * each with the cheapest plan that plays it. A quality no plan plays is left out. A viewer who
 * cannot watch the video without a plan (a premium video, no plan) plays none of them.
 * @example qualityOffers(['2160p', '1080p'], { accessLevel: 'premium', plan: 'monthly' }, media) // 2160p: annual, 1080p: playable
 */
export function qualityOffers(qualities: readonly string[], input: EntitlementInput, media: MediaCaps): QualityOffer[] {
  const rungs = qualities.flatMap((name) => {
    const height = qualityHeight(name);
    return height === null ? [] : [{ name, height }];
  });
  const watches = input.accessLevel === 'free' || input.plan !== null;
  const playable = new Set(watches ? entitledRenditions(rungs, maxRenditionHeight(input, media)).map((r) => r.name) : []);
  return rungs.flatMap(({ name, height }): QualityOffer[] => {
    if (playable.has(name)) return [{ name, playable: true, plan: null }];
    const plan = PLANS.find((p) => maxRenditionHeight({ accessLevel: input.accessLevel, plan: p }, media) >= height) ?? null;
    return plan ? [{ name, playable: false, plan }] : [];
  });
}

/**
 * How a quality reads in a list: its name, or its name and the plan that plays it.
 * @example qualityOfferLabel({ name: '2160p', playable: false, plan: 'annual' }) // '2160p (annual plan)'
 */
export function qualityOfferLabel(offer: QualityOffer): string {
  return offer.playable || !offer.plan ? offer.name : `${offer.name} (${offer.plan} plan)`;
}

/**
 * The cheapest plan whose members watch 4K (on videos that have a 2160p rendition), null when no plan does.
 * @example uhdPlan({ maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 }) // 'annual'
 */
export function uhdPlan(media: MediaCaps): EntitledPlan | null {
  return PLANS.find((p) => media.maxHeightByPlan[p] >= UHD_HEIGHT) ?? null;
}

/**
 * Whether this viewer is shown a video's 4K: it has a 2160p (or taller) rendition and their plan plays it.
 * @example canWatchUhd(['2160p'], 'monthly', media) // false with the default caps
 */
export function canWatchUhd(qualities: readonly string[] | null | undefined, plan: EntitledPlan | null, media: MediaCaps): boolean {
  if (!plan) return false;
  return (qualities ?? []).some((q) => {
    const h = qualityHeight(q);
    return h !== null && h >= UHD_HEIGHT && h <= media.maxHeightByPlan[plan];
  });
}

/**
 * The plans' quality in one sentence, from the config (never a hard-coded height).
 * @example planQualitySentence(media) // 'Monthly plan: up to 1080p. Annual plan: up to 4K (2160p) on videos shot in 4K.'
 */
export function planQualitySentence(media: MediaCaps): string {
  const cap = (h: number) => (h >= UHD_HEIGHT ? `up to 4K (${h}p) on videos shot in 4K` : `up to ${h}p`);
  return `Monthly plan: ${cap(media.maxHeightByPlan.monthly)}. Annual plan: ${cap(media.maxHeightByPlan.annual)}.`;
}

/**
 * A plan card's feature list made true for that plan: a 4K line only when the plan plays 4K, and
 * then saying it is for 4K videos; the HD line only when the plan reaches 720p, with its cap below 4K.
 * @example planFeatures(['HD video access', '4K ultra HD access'], 'monthly', media) // ['HD video access (up to 1080p)']
 */
export function planFeatures(features: readonly string[], plan: EntitledPlan, media: MediaCaps): string[] {
  const cap = media.maxHeightByPlan[plan];
  return features.flatMap((f) => {
    if (/\b4K\b|ultra HD/i.test(f)) return cap >= UHD_HEIGHT ? [`${f} (on 4K videos)`] : [];
    if (/\bHD\b/.test(f)) {
      if (cap < 720) return [`Video up to ${cap}p`];
      return cap >= UHD_HEIGHT ? [f] : [`${f} (up to ${cap}p)`];
    }
    return [f];
  });
}
