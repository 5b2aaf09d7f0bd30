import { describe, expect, it } from 'vitest';
import { chunkFailureAction, RELOAD_MEMORY_MS } from './lazyScreen';

describe('a screen whose chunk fails to import while the document stays', () => {
  const now = 1_000_000;

  it('reloads the document when it has not just been reloaded for this path (a deploy replaced the chunks)', () => {
    expect(chunkFailureAction({ path: '/videos', now, lastReload: null })).toBe('reload');
    expect(chunkFailureAction({ path: '/videos', now, lastReload: { path: '/models', at: now - 1_000 } })).toBe('reload');
    expect(chunkFailureAction({ path: '/videos', now, lastReload: { path: '/videos', at: now - RELOAD_MEMORY_MS } })).toBe('reload');
  });

  it('shows the error page when the reload for this path just happened (no reload loop)', () => {
    expect(chunkFailureAction({ path: '/videos', now, lastReload: { path: '/videos', at: now - 2_000 } })).toBe('fail');
    expect(chunkFailureAction({ path: '/videos', now, lastReload: { path: '/videos', at: now - RELOAD_MEMORY_MS + 1 } })).toBe('fail');
  });
});
