import { describe, expect, it } from 'vitest';
import { type ViewRecorded, viewingDecider } from './viewing.decider';

const given = (events: ViewRecorded[]) => events.reduce(viewingDecider.evolve, viewingDecider.initialState());
const view = (watchedSeconds: number, at: string) => ({
  type: 'RecordView' as const,
  data: { videoId: 'v1', userId: 'u1', watchedSeconds, at },
});
const recorded = (at: string): ViewRecorded => ({
  type: 'ViewRecorded',
  data: { videoId: 'v1', userId: 'u1', watchedSeconds: 10, viewedAt: at },
});

describe('viewing decider', () => {
  it('5 s or less is not a view', () => {
    expect(viewingDecider.decide(view(5, '2026-01-01T00:00:00Z'), given([]))).toEqual({ ok: true, events: [] });
  });
  it('more than 5 s is a view', () => {
    const r = viewingDecider.decide(view(5.5, '2026-01-01T00:00:00Z'), given([]));
    expect(r.ok && r.events.map((e) => e.type)).toEqual(['ViewRecorded']);
  });
  it('a second view within 30 minutes is not counted; after 30 minutes it is', () => {
    const state = given([recorded('2026-01-01T00:00:00Z')]);
    expect(viewingDecider.decide(view(60, '2026-01-01T00:29:59Z'), state)).toEqual({ ok: true, events: [] });
    const later = viewingDecider.decide(view(60, '2026-01-01T00:30:00Z'), state);
    expect(later.ok && later.events).toHaveLength(1);
  });
  it('a negative duration is refused', () => {
    expect(viewingDecider.decide(view(-1, '2026-01-01T00:00:00Z'), given([])).ok).toBe(false);
  });
});
