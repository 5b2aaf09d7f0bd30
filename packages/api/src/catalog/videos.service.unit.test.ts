/** An admin's edit as decider changes, without a store. */
import { describe, expect, it } from 'vitest';
import { changesFrom } from './videos.service.js';

describe('changesFrom', () => {
  it('maps only the fields sent, an empty model to none, labels to clean lists', () => {
    expect(changesFrom({ title: 'Golden Hour', model: '', tags: 'Beach, sunset', published: true })).toEqual({
      ok: true,
      value: { title: 'Golden Hour', modelName: null, tags: ['Beach', 'sunset'] },
    });
    expect(changesFrom({})).toEqual({ ok: true, value: {} });
  });

  it('refuses a bad label list as invalid input', () => {
    const r = changesFrom({ categories: ['x'.repeat(500)] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('validation.invalid_input');
  });
});
