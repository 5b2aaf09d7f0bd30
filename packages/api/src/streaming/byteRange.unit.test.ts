import { describe, expect, it } from 'vitest';
import { ifRangeMatches, parseRange } from './byteRange';

describe('parseRange', () => {
  const size = 1000;
  it.each([
    [undefined, { kind: 'full' }],
    ['bytes=0-0', { kind: 'partial', start: 0, end: 0 }],
    ['bytes=0-99', { kind: 'partial', start: 0, end: 99 }],
    ['bytes=999-999', { kind: 'partial', start: 999, end: 999 }],
    ['bytes=500-', { kind: 'partial', start: 500, end: 999 }],
    ['bytes=900-5000', { kind: 'partial', start: 900, end: 999 }],
    ['bytes=-1', { kind: 'partial', start: 999, end: 999 }],
    ['bytes=-100', { kind: 'partial', start: 900, end: 999 }],
    ['bytes=-5000', { kind: 'partial', start: 0, end: 999 }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=1000-1001', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=5-2', { kind: 'full' }],
    ['bytes=0-1,5-6', { kind: 'full' }],
    ['items=0-1', { kind: 'full' }],
    ['bytes=abc', { kind: 'full' }],
    ['bytes=-', { kind: 'full' }],
  ])('%s', (header, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
  it('nothing is satisfiable in an empty file', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('ifRangeMatches', () => {
  const etag = '"v-1-2"';
  const lm = new Date('2026-01-15T12:00:00.000Z');
  it('absent: the range applies', () => expect(ifRangeMatches(undefined, etag, lm)).toBe(true));
  it('same strong ETag', () => expect(ifRangeMatches('"v-1-2"', etag, lm)).toBe(true));
  it('other ETag', () => expect(ifRangeMatches('"v-1-3"', etag, lm)).toBe(false));
  it('weak ETag never matches', () => expect(ifRangeMatches('W/"v-1-2"', etag, lm)).toBe(false));
  it('the Last-Modified date', () => expect(ifRangeMatches(lm.toUTCString(), etag, lm)).toBe(true));
  it('another date', () => expect(ifRangeMatches(new Date(lm.getTime() - 60_000).toUTCString(), etag, lm)).toBe(false));
});
