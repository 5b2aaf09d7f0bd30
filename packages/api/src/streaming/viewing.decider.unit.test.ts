import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { type ViewRecorded, viewingDecider } from './viewing.decider';

const { given } = deciderSpec(viewingDecider);
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
    expect(given([]).when(view(5, '2026-01-01T00:00:00Z'))).toEqual({ ok: true, events: [] });
  });
  it('more than 5 s is a view', () => {
    const r = given([]).when(view(5.5, '2026-01-01T00:00:00Z'));
    expect(r.ok && r.events.map((e) => e.type)).toEqual(['ViewRecorded']);
  });
  it('a second view within 30 minutes is not counted; after 30 minutes it is', () => {
    const seen = given([recorded('2026-01-01T00:00:00Z')]);
    expect(seen.when(view(60, '2026-01-01T00:29:59Z'))).toEqual({ ok: true, events: [] });
    const later = seen.when(view(60, '2026-01-01T00:30:00Z'));
    expect(later.ok && later.events).toHaveLength(1);
  });
  it('a negative duration is refused', () => {
    expect(given([]).when(view(-1, '2026-01-01T00:00:00Z')).ok).toBe(false);
  });
});
