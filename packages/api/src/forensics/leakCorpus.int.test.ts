/**
 * Leak tracing on footage that is not a clean test card (issue 41), with real ffmpeg output: a
 * grainy source (temporal noise in every frame) and a dark, low-contrast source that pans, zooms
 * and shakes (corpus.testkit.ts), 75 s at 480×270, marked by the server's own ladder command and
 * reference step. Two members' streams are saved from their code's mix of A and B, cut between two
 * whole seconds (7.3 s — the cut the old reader could not follow), scaled to 640×360 and re-encoded
 * at CRF 28. Each copy names its member among 1,000 other codes; the two streams differ by ≥ 42 dB
 * PSNR; a copy of the unmarked source and a 10 s copy name no one. The full corpus (720p, seven
 * kinds of footage, six kinds of leak) is `bench/leak-corpus.ts`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/harness';
import { minimumBits } from './code';
import { leakCopy, makeSource, markLadder, memberPlaylist, psnrSsim, type SourceKind, saveStream } from './corpus.testkit';
import { judgeCopy, MIN_ALIGNMENT, readCopy, storedReference } from './identify';

const fixtures = tmpDir('leak-corpus-');
afterAll(() => (process.env.KEEP_FIXTURES ? undefined : fs.rmSync(fixtures, { recursive: true, force: true })));

const SIZE = { width: 480, height: 270, seconds: 75 };

/** The verdict on a copy among its two members and 1,000 strangers, by identify.ts's rule. */
async function nameOf(ladder: { dir: string; videoId: string }, copy: string, secrets: Buffer[]) {
  const ref = storedReference(ladder.dir, ladder.videoId);
  const read = await readCopy(ref, copy);
  if (read.score < MIN_ALIGNMENT) return { kind: 'no-match' as const, covered: 0 };
  const codes = [
    ...secrets.map((secret, i) => ({ memberId: `member-${i}`, secret })),
    ...Array.from({ length: 1000 }, (_, i) => ({ memberId: `stranger-${i}`, secret: randomBytes(32) })),
  ];
  return { covered: read.reads.length, ...(await judgeCopy(ref, read.reads, async () => codes)) };
}

for (const kind of ['grain-heavy', 'dark-motion'] as SourceKind[]) {
  describe(`leak tracing on ${kind} footage`, () => {
    const secrets = [randomBytes(32), randomBytes(32)];
    let source: string;
    let ladder: Awaited<ReturnType<typeof markLadder>>;
    const saved: string[] = [];

    it("marks the source; the two members' streams differ by ≥ 42 dB PSNR", async () => {
      source = await makeSource(kind, path.join(fixtures, `${kind}.mp4`), SIZE);
      ladder = await markLadder(source, path.join(fixtures, `${kind}-ladder`), `corpus-${kind}`, { ...SIZE, preset: 'veryfast' });
      const top = ladder.renditions[0]?.name as string;
      for (const [i, s] of secrets.entries())
        saved.push(await saveStream(memberPlaylist(ladder, top, s, path.join(fixtures, `${kind}-${i}.m3u8`)), path.join(fixtures, `${kind}-${i}.ts`)));
      const { psnr, ssim } = await psnrSsim(saved[0] as string, saved[1] as string);
      console.log(`[leak corpus] ${kind}: PSNR ${psnr.toFixed(2)} dB, SSIM ${ssim.toFixed(4)} between the two members' streams`);
      expect(psnr).toBeGreaterThanOrEqual(42);
    }, 600_000);

    it('each copy cut at 7.3 s, scaled to 640×360, CRF 28 (62 s) names its member', async () => {
      for (const [i, stream] of saved.entries()) {
        const copy = await leakCopy(stream, path.join(fixtures, `${kind}-leak-${i}.mp4`), 'cut-scale-crf28', 62);
        const v = await nameOf(ladder, copy, secrets);
        console.log(`[leak corpus] ${kind} member ${i}: ${JSON.stringify(v)}`);
        expect(v, JSON.stringify(v)).toMatchObject({ kind: 'identified', memberId: `member-${i}` });
      }
    }, 600_000);

    it('a copy of the unmarked source names no one; a 10 s copy is too short', async () => {
      const unmarked = await leakCopy(source, path.join(fixtures, `${kind}-unmarked.mp4`), 'cut-scale-crf28', 62);
      const u = await nameOf(ladder, unmarked, secrets);
      expect(u.kind, JSON.stringify(u)).toBe('no-match');
      const short = await leakCopy(saved[0] as string, path.join(fixtures, `${kind}-short.mp4`), 'cut-scale-crf28', 10, 20);
      const s = await nameOf(ladder, short, secrets);
      expect(s.covered).toBeLessThan(minimumBits());
      expect(s.kind).toBe('too-short');
    }, 600_000);
  });
}
