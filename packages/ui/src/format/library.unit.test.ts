import { describe, expect, it } from 'vitest';
import {
  accessLevelLabel,
  clampPage,
  featuredBadges,
  formatFileSize,
  NEW_BADGE_DAYS,
  pageCount,
  topQualityBadge,
  videoSpecs,
} from './library';

describe('video library helpers', () => {
  it.each([
    [0, 10, 1],
    [1, 10, 1],
    [10, 10, 1],
    [11, 10, 2],
    [25, 10, 3],
    [5, 0, 1],
    [Number.NaN, 10, 1],
  ])('pageCount(%s, %s) = %s', (total, size, pages) => expect(pageCount(total, size)).toBe(pages));

  it('clamps the page into range', () => {
    expect(clampPage(3, 20, 10)).toBe(2); // the last row of page 3 was deleted
    expect(clampPage(2, 0, 10)).toBe(1);
    expect(clampPage(0, 50, 10)).toBe(1);
    expect(clampPage(-4, 50, 10)).toBe(1);
    expect(clampPage(4, 50, 10)).toBe(4);
    expect(clampPage(Number.NaN, 50, 10)).toBe(1);
  });

  it('formats file sizes in binary units', () => {
    expect(formatFileSize(0)).toBe('0 B');
    expect(formatFileSize(1023)).toBe('1023 B');
    expect(formatFileSize(1024)).toBe('1 KB');
    expect(formatFileSize(1_572_864)).toBe('1.5 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3 GB');
    expect(formatFileSize(undefined)).toBe('N/A');
    expect(formatFileSize(-1)).toBe('N/A');
  });

  it('describes the recorded video stream', () => {
    expect(videoSpecs({ width: 1920, height: 1080, codec: 'h264' })).toBe('1920×1080 · h264');
    expect(videoSpecs({ width: 0, height: 0, codec: null })).toBe('');
    expect(videoSpecs({ codec: 'hevc' })).toBe('hevc');
  });

  it('labels access levels', () => {
    expect(accessLevelLabel('vip')).toBe('VIP');
    expect(accessLevelLabel('premium')).toBe('Premium');
    expect(accessLevelLabel('free')).toBe('Free');
    expect(accessLevelLabel('gold')).toBe('gold');
    expect(accessLevelLabel(undefined)).toBe('N/A');
  });
});

describe('topQualityBadge', () => {
  it('names the best rendition, 4K from 2160p', () => {
    expect(topQualityBadge(['2160p', '1080p', '720p'])).toBe('4K');
    expect(topQualityBadge(['720p', '480p'])).toBe('720p');
    expect(topQualityBadge([])).toBeNull();
    expect(topQualityBadge(undefined)).toBeNull();
  });

  it("marks a quality the viewer's plan does not play with the plan that does", () => {
    const media = { maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 };
    const premium = { accessLevel: 'premium' };
    expect(topQualityBadge(['2160p', '1080p'], premium, { plan: 'monthly', media })).toBe('4K (annual plan)');
    expect(topQualityBadge(['2160p', '1080p'], premium, { plan: 'annual', media })).toBe('4K');
    expect(topQualityBadge(['1080p', '720p'], { accessLevel: 'free' }, { plan: null, media })).toBe('1080p (monthly plan)');
    expect(topQualityBadge(['4320p', '1080p'], premium, { plan: 'monthly', media })).toBe('1080p');
  });
});

describe('featuredBadges', () => {
  const now = new Date('2026-11-26T12:00:00.000Z');
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();

  it('says 4K only for a 2160p rendition: a 360p upload gets "360p", an untranscoded one no quality badge', () => {
    expect(featuredBadges({ publishedDate: daysAgo(1), qualities: ['2160p', '1080p'] }, now)).toEqual(['NEW', '4K']);
    expect(featuredBadges({ publishedDate: daysAgo(1), qualities: ['360p'] }, now)).toEqual(['NEW', '360p']);
    expect(featuredBadges({ publishedDate: daysAgo(1), qualities: [] }, now)).toEqual(['NEW']);
  });

  it("marks the 4K badge as the annual plan's to a monthly member", () => {
    const viewer = { plan: 'monthly' as const, media: { maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 } };
    const video = { publishedDate: daysAgo(1), qualities: ['2160p', '1080p'], accessLevel: 'premium' };
    expect(featuredBadges(video, now, viewer)).toEqual(['NEW', '4K (annual plan)']);
  });

  it(`says NEW only within ${NEW_BADGE_DAYS} days of publication`, () => {
    expect(featuredBadges({ publishedDate: daysAgo(NEW_BADGE_DAYS - 0.01), qualities: ['2160p'] }, now)).toEqual(['NEW', '4K']);
    expect(featuredBadges({ publishedDate: daysAgo(NEW_BADGE_DAYS), qualities: ['2160p'] }, now)).toEqual(['4K']);
    expect(featuredBadges({ publishedDate: daysAgo(400), qualities: ['720p'] }, now)).toEqual(['720p']);
    expect(featuredBadges({ publishedDate: null, qualities: ['720p'] }, now)).toEqual(['720p']);
    expect(featuredBadges({ publishedDate: 'not a date', qualities: [] }, now)).toEqual([]);
  });

  it('tolerates a browser clock a little behind the server, not a date far ahead', () => {
    expect(featuredBadges({ publishedDate: daysAgo(-0.01), qualities: [] }, now)).toEqual(['NEW']);
    expect(featuredBadges({ publishedDate: daysAgo(-2), qualities: [] }, now)).toEqual([]);
  });
});
