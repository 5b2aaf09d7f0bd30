/** Display helpers for the admin video library: page counts, file sizes, resolutions, access levels. */
import { type EntitledPlan, type MediaCaps, type QualityOffer, qualityHeight, qualityOffers, UHD_HEIGHT } from '../access/entitlement';

export const ACCESS_LEVEL_OPTIONS = [
  { value: 'free', label: 'Free' },
  { value: 'premium', label: 'Premium' },
  { value: 'vip', label: 'VIP' },
] as const;

/** 'Free', 'Premium', 'VIP'; anything else as given. */
export function accessLevelLabel(level: string | null | undefined): string {
  return ACCESS_LEVEL_OPTIONS.find((o) => o.value === level)?.label ?? (level || 'N/A');
}

/**
 * How many pages `total` rows fill (at least one, so an empty list still has 'Page 1 of 1').
 * @example pageCount(25, 10) // 3
 */
export function pageCount(total: number, pageSize: number): number {
  if (!Number.isFinite(total) || total <= 0 || !Number.isFinite(pageSize) || pageSize <= 0) return 1;
  return Math.ceil(total / pageSize);
}

/** `page` kept within 1..pageCount (after a delete empties the last page). */
export function clampPage(page: number, total: number, pageSize: number): number {
  const last = pageCount(total, pageSize);
  if (!Number.isFinite(page) || page < 1) return 1;
  return Math.min(Math.floor(page), last);
}

/**
 * Bytes in binary units with one decimal above KB.
 * @example formatFileSize(1_572_864) // '1.5 MB'
 */
export function formatFileSize(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) return 'N/A';
  if (bytes < 1024) return `${Math.floor(bytes)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
  return `${value.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}

/**
 * '1920×1080', with the codec when known; '' when the upload recorded no dimensions.
 * @example videoSpecs({ width: 1920, height: 1080, codec: 'h264' }) // '1920×1080 · h264'
 */
export function videoSpecs(v: { width?: number | null; height?: number | null; codec?: string | null }): string {
  const parts: string[] = [];
  if (v.width && v.height) parts.push(`${v.width}×${v.height}`);
  if (v.codec) parts.push(v.codec);
  return parts.join(' · ');
}

/** Who reads a badge: their plan (null: a visitor or a member without one) and the site's `media` caps. */
export interface BadgeViewer {
  plan: EntitledPlan | null;
  media: MediaCaps;
}

/**
 * The catalog badge for a video's best HLS rendition: "4K" from 2160p up, else its name ("1080p"),
 * null before it is transcoded. Given the viewer, the best one they are offered (qualityOffers): one
 * their plan does not play carries the plan that does ('4K (annual plan)'), one no plan plays none.
 * @example topQualityBadge(['2160p', '1080p']) // '4K'
 * @example topQualityBadge(['2160p', '1080p'], { accessLevel: 'premium' }, { plan: 'monthly', media }) // '4K (annual plan)'
 */
export function topQualityBadge(
  qualities: readonly string[] | null | undefined,
  video?: { accessLevel: string },
  viewer?: BadgeViewer,
): string | null {
  const named = (h: number) => (h >= UHD_HEIGHT ? '4K' : `${h}p`);
  if (video && viewer) {
    const offers = qualityOffers(qualities ?? [], { accessLevel: video.accessLevel, plan: viewer.plan }, viewer.media);
    const top = offers.reduce<{ offer: QualityOffer; height: number } | null>((best, offer) => {
      const height = qualityHeight(offer.name) ?? 0;
      return !best || height > best.height ? { offer, height } : best;
    }, null);
    if (!top) return null;
    return top.offer.playable || !top.offer.plan ? named(top.height) : `${named(top.height)} (${top.offer.plan} plan)`;
  }
  const heights = (qualities ?? []).map((q) => Number.parseInt(q, 10)).filter((h) => Number.isFinite(h));
  if (heights.length === 0) return null;
  return named(Math.max(...heights));
}

/** How long a published video carries the "NEW" badge on the featured cards (spec §2 Home page). */
export const NEW_BADGE_DAYS = 14;
const DAY_MS = 86_400_000;

/**
 * The badges of a catalog video's featured card, each one true of the video: "NEW" while it was
 * published less than NEW_BADGE_DAYS before `now` (a date up to a day ahead counts too: the browser's
 * clock may lag the server's; none without a date), then
 * its quality badge (topQualityBadge: "4K" only when a 2160p rendition exists, none before transcode;
 * given the viewer, marked with the plan that plays it when theirs does not).
 * @example featuredBadges({ publishedDate: '2026-11-20T10:00:00Z', qualities: ['360p'] }, new Date('2026-11-26')) // ['NEW', '360p']
 */
export function featuredBadges(
  video: { publishedDate?: string | null; qualities?: readonly string[] | null; accessLevel?: string },
  now: Date,
  viewer?: BadgeViewer,
): string[] {
  const badges: string[] = [];
  const published = video.publishedDate ? Date.parse(video.publishedDate) : Number.NaN;
  const age = now.getTime() - published;
  if (Number.isFinite(age) && age > -DAY_MS && age < NEW_BADGE_DAYS * DAY_MS) badges.push('NEW');
  const quality = topQualityBadge(video.qualities, video.accessLevel ? { accessLevel: video.accessLevel } : undefined, viewer);
  if (quality) badges.push(quality);
  return badges;
}
