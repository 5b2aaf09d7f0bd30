import { describe, expect, it } from 'vitest';
import { ANNUAL_PLAN_BADGE, catalogCardState } from './catalogCard';
import { msUntilNextRelease, RELEASE_RECHECK_MAX_MS } from './release';

const now = Date.parse('2026-11-30T12:00:00Z');
const premium = { accessLevel: 'premium', qualities: ['1080p', '720p'], exclusiveTo: null, availableAt: null };
const annualOnly = { ...premium, exclusiveTo: 'annual' };

describe('what a catalog card says to this viewer', () => {
  it('locks an annual-only video with the "Annual plan" badge for anyone not on the annual plan', () => {
    for (const plan of ['monthly', null, undefined])
      expect(catalogCardState(annualOnly, { plan }, now)).toEqual({ badges: [ANNUAL_PLAN_BADGE], lock: 'annual_plan', note: null });
    expect(ANNUAL_PLAN_BADGE).toBe('Annual plan');
  });

  it('opens it to the annual plan and to admins, with the usual badges', () => {
    expect(catalogCardState(annualOnly, { plan: 'annual' }, now)).toEqual({ badges: ['PREMIUM', '1080p'], lock: null, note: null });
    expect(catalogCardState(annualOnly, { admin: true, plan: null }, now)).toEqual({
      badges: ['PREMIUM', '1080p'],
      lock: null,
      note: null,
    });
  });

  it('says when a scheduled video comes to the viewer’s plan, in the access decision’s words', () => {
    const later = { ...premium, availableAt: '2026-12-03T09:00:00.000Z' };
    expect(catalogCardState(later, { plan: 'monthly' }, now)).toEqual({
      badges: ['PREMIUM', '1080p'],
      lock: 'coming',
      note: 'Coming to your plan on 3 December 2026',
    });
    // Its day has come: playable (the server stops sending availableAt then anyway).
    expect(catalogCardState(later, { plan: 'monthly' }, Date.parse('2026-12-03T09:00:01Z')).lock).toBeNull();
    // The annual lock says more than the date: the monthly plan never gets it.
    expect(catalogCardState({ ...later, exclusiveTo: 'annual' }, { plan: 'monthly' }, now).lock).toBe('annual_plan');
  });

  it('an ordinary video keeps its level and top quality', () => {
    expect(catalogCardState({ accessLevel: 'free', qualities: ['2160p'] }, { plan: null }, now)).toEqual({
      badges: ['FREE', '4K'],
      lock: null,
      note: null,
    });
    expect(catalogCardState({ accessLevel: 'vip' }, {}, now).badges).toEqual(['VIP']);
  });
});

describe('when an open catalog asks again', () => {
  it('a second after the first release it is counting down to, capped, or never', () => {
    expect(msUntilNextRelease([{ availableAt: '2026-11-30T12:01:00Z' }, { availableAt: '2026-11-30T12:00:30Z' }], now)).toBe(31_000);
    expect(msUntilNextRelease([{ availableAt: '2026-12-03T09:00:00Z' }], now)).toBe(RELEASE_RECHECK_MAX_MS);
    expect(msUntilNextRelease([{ availableAt: '2026-11-30T11:00:00Z' }, { availableAt: null }, {}], now)).toBe(false);
    expect(msUntilNextRelease(undefined, now)).toBe(false);
  });
});
