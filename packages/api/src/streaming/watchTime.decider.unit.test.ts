import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { MAX_REPORT_SECONDS, type WatchTimeRecorded, watchTimeDecider } from './watchTime.decider';

const { given } = deciderSpec(watchTimeDecider);
const report = (seconds: number, at: string) => ({
  type: 'RecordWatchTime' as const,
  data: { videoId: 'v1', userId: 'u1', seconds, at },
});
const recorded = (seconds: number, at: string): WatchTimeRecorded => ({
  type: 'WatchTimeRecorded',
  data: { videoId: 'v1', userId: 'u1', seconds, at },
});

describe('watch-time decider', () => {
  it('a first report is recorded as it is, up to the per-report bound', () => {
    expect(given([]).when(report(30, '2026-01-01T00:00:30Z'))).toEqual({ ok: true, events: [recorded(30, '2026-01-01T00:00:30Z')] });
    expect(given([]).when(report(MAX_REPORT_SECONDS, '2026-01-01T00:01:00Z'))).toEqual({
      ok: true,
      events: [recorded(MAX_REPORT_SECONDS, '2026-01-01T00:01:00Z')],
    });
  });
  it('zero seconds records nothing', () => {
    expect(given([]).when(report(0, '2026-01-01T00:00:00Z'))).toEqual({ ok: true, events: [] });
  });
  it('a report is credited at most the whole seconds since the previous recorded one', () => {
    const seen = given([recorded(30, '2026-01-01T00:00:30Z')]);
    expect(seen.when(report(30, '2026-01-01T00:00:40.900Z'))).toEqual({ ok: true, events: [recorded(10, '2026-01-01T00:00:40.900Z')] });
    expect(seen.when(report(30, '2026-01-01T00:01:00Z'))).toEqual({ ok: true, events: [recorded(30, '2026-01-01T00:01:00Z')] });
    // The same instant again (a replayed or hammered report) credits nothing.
    expect(seen.when(report(30, '2026-01-01T00:00:30Z'))).toEqual({ ok: true, events: [] });
  });
  it('after a long pause the per-report bound still holds', () => {
    const seen = given([recorded(30, '2026-01-01T00:00:30Z')]);
    expect(seen.when(report(60, '2026-01-02T00:00:00Z'))).toEqual({ ok: true, events: [recorded(60, '2026-01-02T00:00:00Z')] });
  });
  it('negative, fractional or oversized seconds are refused', () => {
    for (const s of [-1, 1.5, MAX_REPORT_SECONDS + 1, Number.NaN]) {
      const r = given([]).when(report(s, '2026-01-01T00:00:00Z'));
      expect(r.ok ? 'accepted' : r.error.code).toBe('validation.invalid_input');
    }
  });
});
