/** The one meaning of a date in the audit commands and routes (docs/audit.md#dates). */
import { describe, expect, it } from 'vitest';
import { parseDateBound } from './formats.js';
import { parseReplayPoint } from './ledger.js';

describe('parseDateBound', () => {
  it('reads a bare day as the whole day in UTC: its first millisecond as a start, its last as an end', () => {
    expect(parseDateBound('2026-11-26', false)).toEqual(new Date('2026-11-26T00:00:00.000Z'));
    expect(parseDateBound('2026-11-26', true)).toEqual(new Date('2026-11-26T23:59:59.999Z'));
  });

  it('keeps the exact instant of an ISO 8601 timestamp, whichever end it bounds', () => {
    for (const end of [false, true]) {
      expect(parseDateBound('2026-11-26T15:04:05Z', end)).toEqual(new Date('2026-11-26T15:04:05.000Z'));
      expect(parseDateBound('2026-11-26T15:04:05.250+01:00', end)).toEqual(new Date('2026-11-26T14:04:05.250Z'));
      expect(parseDateBound('2026-11-26T00:00Z', end)).toEqual(new Date('2026-11-26T00:00:00.000Z'));
    }
  });

  it('leaves an absent bound open', () => {
    expect(parseDateBound(undefined, true)).toBeUndefined();
    expect(parseDateBound('', false)).toBeUndefined();
  });

  it('refuses impossible days, zone-less times and words', () => {
    for (const bad of [
      '2026-02-31',
      '2026-13-01',
      '2026-00-10',
      '2025-02-29',
      '2026-11-26T15:00:00',
      '2026-11-26T25:00Z',
      'yesterday',
      '26/11/2026',
      'Nov 26 2026',
    ])
      expect({ bad, parsed: parseDateBound(bad, true) }).toEqual({ bad, parsed: 'invalid' });
    expect(parseDateBound('2028-02-29', false)).toEqual(new Date('2028-02-29T00:00:00.000Z'));
  });
});

describe('parseReplayPoint', () => {
  it('reads a bare day as through the end of that day, as `audit payments --to` does', () => {
    expect(parseReplayPoint('2026-11-26')).toEqual({ time: new Date('2026-11-26T23:59:59.999Z') });
    expect(parseReplayPoint('2026-11-26T08:00:00Z')).toEqual({ time: new Date('2026-11-26T08:00:00.000Z') });
    expect(parseReplayPoint('42')).toEqual({ position: 42 });
    expect(parseReplayPoint('2026-02-31')).toBeUndefined();
    expect(parseReplayPoint('yesterday')).toBeUndefined();
  });
});
