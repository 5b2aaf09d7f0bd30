import { describe, expect, it } from 'vitest';
import { isBlockedShortcut, randomWatermarkPosition } from './protection';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('player shortcut blocking', () => {
  it.each([
    ['PrintScreen', {}],
    ['F12', {}],
    ['s', { ctrlKey: true }],
    ['a', { ctrlKey: true }],
    ['S', { metaKey: true }],
    ['I', { ctrlKey: true, shiftKey: true }],
    ['j', { ctrlKey: true, shiftKey: true }],
    ['u', { ctrlKey: true }],
  ])('blocks %s %o', (k, mods) => expect(isBlockedShortcut(key(k, mods))).toBe(true));

  it.each([['a'], [' '], ['ArrowRight'], ['Escape'], ['Tab']])('lets %s through', (k) => expect(isBlockedShortcut(key(k))).toBe(false));
});

describe('watermark position', () => {
  it('stays inside the frame', () => {
    expect(randomWatermarkPosition(() => 0)).toEqual({ top: 5, left: 5 });
    expect(randomWatermarkPosition(() => 1)).toEqual({ top: 85, left: 65 });
  });
});
