import { describe, expect, it } from 'vitest';
import { parseAccessLevel, parseDurationText, parseLabels } from './videoInput';

describe('videoInput', () => {
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
