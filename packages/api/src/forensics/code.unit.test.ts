import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rewriteMediaPlaylist } from '../streaming/hlsPlaylists';
import { allowedErrors, codeBits, falseMatchBound, minimumBits, verdict } from './code';

describe('forensic code and matching rule', () => {
  it('the bound: 37 clear bits name a member among 100,000 with no error, a 75 s copy forgives 9', () => {
    expect(minimumBits()).toBe(37);
    expect(allowedErrors(36)).toBeNull();
    expect(allowedErrors(37)).toBe(0);
    expect(allowedErrors(74)).toBe(9);
    expect(falseMatchBound(74, 9)).toBeLessThanOrEqual(1e-6);
    expect(falseMatchBound(74, 10)).toBeGreaterThan(1e-6);
    // A larger membership tightens the rule.
    expect(allowedErrors(37, 1_000_000)).toBeNull();
  });

  it('codes are per member and per video, and any window reads the same bits', () => {
    const s = randomBytes(32);
    const all = codeBits(s, 'v1', 0, 600);
    expect(codeBits(s, 'v1', 250, 100)).toEqual(all.slice(250, 350));
    expect(codeBits(s, 'v2', 0, 600)).not.toEqual(all);
    expect(codeBits(randomBytes(32), 'v1', 0, 600)).not.toEqual(all);
    const ones = all.reduce((a, b) => a + b, 0);
    expect(ones).toBeGreaterThan(240);
    expect(ones).toBeLessThan(360);
  });

  it('never names anyone below the bound, and names the closest within it', () => {
    expect(verdict(20, [{ memberId: 'a', distance: 0 }])).toMatchObject({ kind: 'too-short', neededBits: 37 });
    expect(verdict(50, [{ memberId: 'a', distance: 3 }])).toMatchObject({ kind: 'no-match', bestDistance: 3 });
    expect(
      verdict(50, [
        { memberId: 'a', distance: 20 },
        { memberId: 'b', distance: 1 },
      ]),
    ).toMatchObject({ kind: 'identified', memberId: 'b', distance: 1 });
  });

  it("a marked playlist is rewritten to the member's variants, its marker dropped", () => {
    const stored =
      '#EXTM3U\n## forensic-ab\n#EXT-X-KEY:METHOD=AES-128,URI="key?w=0"\n#EXTINF:1.0,\nseg_00000.ts\n#EXTINF:1.0,\nseg_00001.ts\n#EXT-X-ENDLIST\n';
    const out = rewriteMediaPlaylist(stored, '360p', 'q=1', '/k?t', (i) => (i === 1 ? 1 : 0));
    expect(out).not.toContain('forensic');
    expect(out).toContain('../segments/360p-seg_00000.ts?q=1');
    expect(out).toContain('../segments/360p-seg_00001b.ts?q=1');
  });
});
