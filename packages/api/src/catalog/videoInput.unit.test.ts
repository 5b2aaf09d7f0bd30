import { describe, expect, it } from 'vitest';
import { checkText, parseAccessLevel, parseDurationText, parseExclusiveTo, parseLabels, parsePublishAt } from './videoInput';

describe('videoInput', () => {
  it('titles, descriptions and labels under the text policy (issue 44): controls and direction characters refused, zero-width spaces stripped', () => {
    expect(checkText('Beach\u202e day', 'title', 200)).toEqual({
      ok: false,
      error: 'title must not contain text direction override characters',
    });
    expect(checkText('Beach\u001b[31m', 'title', 200)).toEqual({ ok: false, error: 'title must not contain control characters' });
    expect(checkText('Beach\r\nday', 'title', 200)).toEqual({ ok: false, error: 'title must not contain control characters' });
    expect(checkText(' Beach\u200b day ', 'title', 200)).toEqual({ ok: true, value: 'Beach day' });
    expect(checkText('Sun\r\nsand\tsea', 'description', 5000, { multiLine: true })).toEqual({ ok: true, value: 'Sun\nsand\tsea' });
    expect(checkText('Sun\u0007', 'description', 5000, { multiLine: true }).ok).toBe(false);
    expect(checkText('\u200b\u200b', 'model', 100)).toEqual({ ok: true, value: '' });
    expect(parseLabels('beach, VIP\u2067 ·\u2069', 'tags')).toEqual({
      ok: false,
      error: 'tags: each entry must not contain text direction override characters',
    });
    expect(parseLabels(['sun\u200b', '\u200b'], 'tags')).toEqual({ ok: true, value: ['sun'] });
  });

  it('durations in mm:ss (and h:mm:ss)', () => {
    expect(parseDurationText('12:34')).toEqual({ ok: true, value: 754 });
    expect(parseDurationText('0:05')).toEqual({ ok: true, value: 5 });
    expect(parseDurationText('1:02:03')).toEqual({ ok: true, value: 3723 });
    expect(parseDurationText('')).toEqual({ ok: true, value: null });
    expect(parseDurationText(undefined)).toEqual({ ok: true, value: null });
    for (const bad of ['12', '12:3', '12:60', 'ab:cd', '-1:00']) expect(parseDurationText(bad).ok).toBe(false);
  });
  it('labels from commas, JSON or repeated fields; trimmed and de-duplicated', () => {
    expect(parseLabels(' a, b ,,A ', 'tags')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(parseLabels('["x","y"]', 'tags')).toEqual({ ok: true, value: ['x', 'y'] });
    expect(parseLabels(['x', 'y,z'], 'tags')).toEqual({ ok: true, value: ['x', 'y', 'z'] });
    expect(parseLabels(null, 'tags')).toEqual({ ok: true, value: [] });
    expect(parseLabels('x'.repeat(65), 'tags')).toMatchObject({ ok: false, error: expect.stringContaining('tags') });
  });
  it('access level defaults to premium', () => {
    expect(parseAccessLevel('')).toEqual({ ok: true, value: 'premium' });
    expect(parseAccessLevel('VIP')).toEqual({ ok: true, value: 'vip' });
    expect(parseAccessLevel('gold')).toEqual({ ok: false, error: 'accessLevel must be one of free, premium, vip' });
  });
});

describe('exclusiveTo and publishAt as typed (issue 40)', () => {
  it('exclusiveTo: annual, or empty for none; anything else names the field', () => {
    expect(parseExclusiveTo(' Annual ')).toEqual({ ok: true, value: 'annual' });
    for (const none of ['', null, undefined, 'none']) expect(parseExclusiveTo(none)).toEqual({ ok: true, value: null });
    expect(parseExclusiveTo('monthly')).toEqual({ ok: false, error: 'exclusiveTo must be annual (or empty for none)' });
  });
  it('publishAt: an ISO date-time with Z or an offset, normalized to UTC; empty for none; a date alone or no offset refused', () => {
    expect(parsePublishAt('2026-12-03T09:00:00+01:00')).toEqual({ ok: true, value: '2026-12-03T08:00:00.000Z' });
    expect(parsePublishAt('2026-12-03T09:00Z')).toEqual({ ok: true, value: '2026-12-03T09:00:00.000Z' });
    expect(parsePublishAt('')).toEqual({ ok: true, value: null });
    for (const bad of ['2026-12-03', '2026-12-03T09:00:00', 'tomorrow', '2026-13-40T09:00:00Z'])
      expect(parsePublishAt(bad)).toMatchObject({ ok: false, error: expect.stringContaining('publishAt must be an ISO 8601 date-time') });
  });
});
