import { describe, expect, it } from 'vitest';
import { valueOr } from '../http/envelope.js';
import { TestClock } from './clock.testkit.js';
import { eventMetadata } from './eventMetadata.js';
import { failure, success } from './result.js';

describe('eventMetadata', () => {
  const ctx = { clock: new TestClock(new Date('2026-03-01T10:00:00.000Z')) };

  it('records the actor, the request and the injected time', () => {
    expect(eventMetadata(ctx, { actorId: 'u1', requestId: 'r1' })).toEqual({
      actorId: 'u1',
      requestId: 'r1',
      at: '2026-03-01T10:00:00.000Z',
    });
  });

  it('names system actors, keeps the mailed links origin and merges extras', () => {
    expect(eventMetadata(ctx, { actorId: null, actor: 'billing-scheduler', origin: 'https://x.test' }, { originalName: 'a.mp4' })).toEqual({
      actorId: null,
      requestId: null,
      at: '2026-03-01T10:00:00.000Z',
      actor: 'billing-scheduler',
      origin: 'https://x.test',
      originalName: 'a.mp4',
    });
  });
});

describe('service results at the HTTP edge', () => {
  it('gives each failure the status its code has in the catalogue', () => {
    expect(failure('payment.state_conflict', 'Already there').error).toEqual({
      code: 'payment.state_conflict',
      status: 409,
      message: 'Already there',
    });
    expect(failure('video.not_found', 'Video not found').error.status).toBe(404);
  });

  it('unwraps a value and throws a failure as the matching HttpError', () => {
    expect(valueOr(success(7))).toBe(7);
    expect(() => valueOr(failure('payment.state_conflict', 'Already there'))).toThrow(
      expect.objectContaining({ code: 'payment.state_conflict', status: 409, message: 'Already there' }),
    );
  });
});
