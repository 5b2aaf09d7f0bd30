import { describe, expect, it } from 'vitest';
import {
  canWatchUhd,
  entitledRenditions,
  type MediaCaps,
  maxRenditionHeight,
  planFeatures,
  planQualitySentence,
  qualityOfferLabel,
  qualityOffers,
  uhdPlan,
} from './entitlement';

const DEFAULT: MediaCaps = { maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 };
const SMALL: MediaCaps = { maxHeightByPlan: { monthly: 240, annual: 360 }, freeMaxHeight: 144 };
const LADDER = ['2160p', '1080p', '720p', '360p'];

describe('entitlement per rendition', () => {
  it('caps a subscriber at their plan, a member without one at the free height on free videos', () => {
    expect(maxRenditionHeight({ accessLevel: 'premium', plan: 'monthly' }, DEFAULT)).toBe(1080);
    expect(maxRenditionHeight({ accessLevel: 'vip', plan: 'annual' }, DEFAULT)).toBe(2160);
    expect(maxRenditionHeight({ accessLevel: 'free', plan: null }, DEFAULT)).toBe(720);
    expect(maxRenditionHeight({ accessLevel: 'free', plan: 'monthly' }, DEFAULT)).toBe(1080);
    expect(maxRenditionHeight({ accessLevel: 'premium', plan: null }, DEFAULT)).toBe(0);
  });

  it('keeps the smallest rendition when none is within the cap', () => {
    expect(entitledRenditions([{ height: 720 }, { height: 360 }], 240)).toEqual([{ height: 360 }]);
    expect(entitledRenditions([], 240)).toEqual([]);
  });
});

describe('qualities as a viewer reads them', () => {
  const labels = (qualities: string[], accessLevel: string, plan: 'monthly' | 'annual' | null, media = DEFAULT) =>
    qualityOffers(qualities, { accessLevel, plan }, media).map(qualityOfferLabel);

  it("marks the monthly member's 2160p as the annual plan's", () => {
    expect(labels(LADDER, 'premium', 'monthly')).toEqual(['2160p (annual plan)', '1080p', '720p', '360p']);
  });

  it('lists every quality as playable to an annual member', () => {
    expect(labels(LADDER, 'premium', 'annual')).toEqual(LADDER);
  });

  it('gives a member without a plan the free cap on free videos, the plans above it', () => {
    expect(labels(LADDER, 'free', null)).toEqual(['2160p (annual plan)', '1080p (monthly plan)', '720p', '360p']);
  });

  it('plays none of a premium video to a visitor, each quality with the plan that plays it', () => {
    expect(labels(['1080p', '360p'], 'premium', null)).toEqual(['1080p (monthly plan)', '360p (monthly plan)']);
  });

  it('leaves out a quality no plan plays, and follows the configured caps', () => {
    expect(labels(['480p', '360p', '240p'], 'premium', 'monthly', SMALL)).toEqual(['360p (annual plan)', '240p']);
  });

  it('matches what the stream keeps when the ladder starts above the cap (its smallest)', () => {
    expect(labels(['720p', '480p'], 'premium', 'monthly', SMALL)).toEqual(['480p']);
  });
});

describe('4K claims', () => {
  it('names the annual plan as the 4K plan only when its cap reaches 2160', () => {
    expect(uhdPlan(DEFAULT)).toBe('annual');
    expect(uhdPlan(SMALL)).toBeNull();
    expect(uhdPlan({ maxHeightByPlan: { monthly: 2160, annual: 2160 }, freeMaxHeight: 720 })).toBe('monthly');
  });

  it('shows 4K to a viewer only where a 2160p rendition exists and their plan plays it', () => {
    expect(canWatchUhd(LADDER, 'annual', DEFAULT)).toBe(true);
    expect(canWatchUhd(LADDER, 'monthly', DEFAULT)).toBe(false);
    expect(canWatchUhd(['1080p'], 'annual', DEFAULT)).toBe(false);
    expect(canWatchUhd(LADDER, null, DEFAULT)).toBe(false);
  });

  it('says the plans’ quality from the config', () => {
    expect(planQualitySentence(DEFAULT)).toBe('Monthly plan: up to 1080p. Annual plan: up to 4K (2160p) on videos shot in 4K.');
    expect(planQualitySentence(SMALL)).toBe('Monthly plan: up to 240p. Annual plan: up to 360p.');
  });

  it('makes the plan cards’ quality lines true per plan', () => {
    const features = ['HD video access', 'Live chat access', '4K ultra HD access'];
    expect(planFeatures(features, 'monthly', DEFAULT)).toEqual(['HD video access (up to 1080p)', 'Live chat access']);
    expect(planFeatures(features, 'annual', DEFAULT)).toEqual(['HD video access', 'Live chat access', '4K ultra HD access (on 4K videos)']);
    expect(planFeatures(features, 'annual', SMALL)).toEqual(['Video up to 360p', 'Live chat access']);
  });
});
