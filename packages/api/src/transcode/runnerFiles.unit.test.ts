import { describe, expect, it } from 'vitest';
import { checkFileQuery, signFileQuery } from './runnerFiles';

const SECRET = 'runner-files-test-secret-runner-files-test-secret';
const grant = { method: 'PUT' as const, videoId: 'video-a', claimAttempt: 2, tokenName: 'runner-a', expires: 2_000 };
const query = (q: string) => Object.fromEntries(new URLSearchParams(q)) as { e?: string; t?: string; s?: string };

describe('runner job file URLs', () => {
  const q = query(signFileQuery(SECRET, grant));
  it('authorize the method, video and claim they were signed for, until they expire', () => {
    expect(checkFileQuery(SECRET, grant, q, 1_999)).toBe('ok');
    expect(checkFileQuery(SECRET, grant, q, 2_001)).toBe('expired');
  });
  it('open no other video, claim or method, and no edited expiry or signature', () => {
    expect(checkFileQuery(SECRET, { ...grant, videoId: 'video-b' }, q, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, { ...grant, claimAttempt: 3 }, q, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, { ...grant, method: 'GET' }, q, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, grant, { ...q, e: '999999' }, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, grant, { ...q, s: `${q.s?.slice(0, -1)}${q.s?.endsWith('A') ? 'B' : 'A'}` }, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, grant, {}, 1_000)).toBe('invalid');
    // The token name is signed: a URL given to one token cannot be made to name another (a live one).
    expect(checkFileQuery(SECRET, grant, { ...q, t: 'runner-b' }, 1_000)).toBe('invalid');
    expect(checkFileQuery(SECRET, grant, { e: q.e, s: q.s }, 1_000)).toBe('invalid');
    expect(checkFileQuery('another-secret-another-secret-another-secret', grant, q, 1_000)).toBe('invalid');
  });
});
