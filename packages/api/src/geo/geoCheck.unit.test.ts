import { describe, expect, it } from 'vitest';
import { checkLocation } from './geoCheck';

const geo = { blockedRegions: ['US-UT', 'KP'], verificationRegions: ['us-la', 'GB'] };

describe('checkLocation', () => {
  it('a blocked country-region', () => {
    expect(checkLocation({ country: 'US', region: 'UT' }, geo)).toEqual({
      blocked: true,
      requiresVerification: false,
      country: 'US',
      region: 'UT',
    });
  });
  it('a blocked whole country', () => expect(checkLocation({ country: 'KP', region: '' }, geo).blocked).toBe(true));
  it('verification by region (case-insensitive) or country', () => {
    expect(checkLocation({ country: 'US', region: 'LA' }, geo)).toMatchObject({ blocked: false, requiresVerification: true });
    expect(checkLocation({ country: 'GB', region: 'ENG' }, geo)).toMatchObject({ blocked: false, requiresVerification: true });
  });
  it('another region of the same country is open', () => {
    expect(checkLocation({ country: 'US', region: 'CA' }, geo)).toMatchObject({ blocked: false, requiresVerification: false });
  });
  it('no location (private or unknown IP) is never blocked', () => {
    expect(checkLocation(null, geo)).toEqual({ blocked: false, requiresVerification: false, country: null, region: null });
  });
});
