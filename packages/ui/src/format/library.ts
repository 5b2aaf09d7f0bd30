/** Display helpers for the admin video library: page counts, file sizes, resolutions, access levels. */

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

/**
 * The catalog badge for a video's best HLS rendition: "4K" from 2160p up, else its name ("1080p"),
 * null before it is transcoded.
 * @example topQualityBadge(['2160p', '1080p']) // '4K'
 */
export function topQualityBadge(qualities: readonly string[] | null | undefined): string | null {
  const heights = (qualities ?? []).map((q) => Number.parseInt(q, 10)).filter((h) => Number.isFinite(h));
  if (heights.length === 0) return null;
  const top = Math.max(...heights);
  return top >= 2160 ? '4K' : `${top}p`;
}

/** How long a published video carries the "NEW" badge on the featured cards (spec §2 Home page). */
export const NEW_BADGE_DAYS = 14;
const DAY_MS = 86_400_000;

/**
 * The badges of a catalog video's featured card, each one true of the video: "NEW" while it was
 * published less than NEW_BADGE_DAYS before `now` (a date up to a day ahead counts too: the browser's
 * clock may lag the server's; none without a date), then
 * its quality badge (topQualityBadge: "4K" only when a 2160p rendition exists, none before transcode).
 * @example featuredBadges({ publishedDate: '2026-11-20T10:00:00Z', qualities: ['360p'] }, new Date('2026-11-26')) // ['NEW', '360p']
 */
export function featuredBadges(video: { publishedDate?: string | null; qualities?: readonly string[] | null }, now: Date): string[] {
  const badges: string[] = [];
  const published = video.publishedDate ? Date.parse(video.publishedDate) : Number.NaN;
  const age = now.getTime() - published;
  if (Number.isFinite(age) && age > -DAY_MS && age < NEW_BADGE_DAYS * DAY_MS) badges.push('NEW');
  const quality = topQualityBadge(video.qualities);
  if (quality) badges.push(quality);
  return badges;
}
