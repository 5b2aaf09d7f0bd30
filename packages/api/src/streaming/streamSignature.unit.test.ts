import { describe, expect, it } from 'vitest';
import { TestClock } from '../shared/clock.testkit';
import { signStreamPath, verifyStreamSignature } from './streamSignature';

const clock = new TestClock(new Date('2026-01-15T12:00:00Z'));
const ctx = { env: { TOKEN_SECRET: 's'.repeat(40), STREAM_URL_TTL_SECONDS: 7200 }, clock } as never;
const query = (path: string) => Object.fromEntries(new URL(path, 'http://x').searchParams) as Record<string, string>;

describe('stream signatures', () => {
  const { path, expiresAt } = signStreamPath(ctx, 'video1', 'user1', '720p');
  it('a fresh signature verifies, for 2 hours by default', () => {
    expect(verifyStreamSignature(ctx, 'video1', query(path))).toMatchObject({ ok: true, grant: { videoId: 'video1', userId: 'user1' } });
    expect(expiresAt).toBe('2026-01-15T14:00:00.000Z');
  });
  it('another video, user or expiry is invalid', () => {
    const q = query(path);
    expect(verifyStreamSignature(ctx, 'video2', q)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyStreamSignature(ctx, 'video1', { ...q, u: 'user2' })).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyStreamSignature(ctx, 'video1', { ...q, e: String(Number(q.e) + 3600) })).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyStreamSignature(ctx, 'video1', { ...q, s: `${q.s?.[0] === 'A' ? 'B' : 'A'}${q.s?.slice(1)}` })).toMatchObject({
      ok: false,
    });
    expect(verifyStreamSignature(ctx, 'video1', {})).toEqual({ ok: false, reason: 'invalid' });
  });
  it('the file is signed: a taller rendition or the original is invalid, an unknown name too', () => {
    const q = query(path);
    expect(verifyStreamSignature(ctx, 'video1', q)).toMatchObject({ ok: true, grant: { file: '720p' } });
    for (const r of ['1080p', 'original', '2160p', '../video.mp4', undefined])
      expect(verifyStreamSignature(ctx, 'video1', { ...q, r })).toEqual({ ok: false, reason: 'invalid' });
  });
  it('past its expiry it is expired', () => {
    const c2 = new TestClock(new Date('2026-01-15T14:00:00Z'));
    expect(verifyStreamSignature({ ...(ctx as object), clock: c2 } as never, 'video1', query(path))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});
