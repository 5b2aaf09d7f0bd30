/**
 * Leak tracing on footage that is not a clean test card (issue 41), with real ffmpeg output: a
 * grainy source (temporal noise in every frame) and a dark, low-contrast source that pans, zooms
 * and shakes (corpus.testkit.ts), 72 s at 320×180, marked by the server's own ladder command and
 * reference step. Two members' streams are saved from their code's mix of A and B, cut between two
 * whole seconds (7.3 s — between two frames of the reference), scaled to 640×360 and re-encoded at
 * CRF 28. Each copy names its member among 1,000 other codes; a copy of the unmarked source and a
 * 10 s copy name no one. The mark costs no fidelity: a member's stream is as close to the source as
 * the same ladder without the mark (PSNR within 0.5 dB), and the two members' streams are at least
 * 42 dB apart: B is A with B's keyframe (transcode/keyframeSplice.ts), so the streams differ by the
 * mark, not by two encodes' drift (35.9 and 38.0 dB when B was an encode of its own). The two
 * members are the same every run (their streams differ in 36 and 30 of the 72 segments), so the
 * figure moves only with the encoder. And footage with hard cuts and fades, captured at 24 fps and cropped 4 %:
 * found to be this video once its crop is known, its member named, while the crop search lifts
 * neither other source to the alignment a copy needs. The full corpus (seven kinds of footage, six
 * kinds of leak) is `bench/leak-corpus.ts`.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/harness';
import { minimumBits } from './code';
import { leakCopy, makeSource, markLadder, memberPlaylist, psnrSsim, type SourceKind, saveStream } from './corpus.testkit';
import { align } from './detect';
import { grayFrames } from './frames';
import { judgeCopy, locateCopy, MIN_ALIGNMENT, readCopy, storedReference } from './identify';

const fixtures = tmpDir('leak-corpus-');
afterAll(() => (process.env.KEEP_FIXTURES ? undefined : fs.rmSync(fixtures, { recursive: true, force: true })));

const SIZE = { width: 320, height: 180, seconds: 72 };
/** Each kind's marked ladder, once its first test has made it (the crop case reads copies against the others). */
const ladders = new Map<SourceKind, Awaited<ReturnType<typeof markLadder>>>();

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
    // Fixed members: which segments their streams differ in is the same every run.
    const secrets = [0, 1].map((i) => createHash('sha256').update(`leak corpus member ${i}`).digest());
    let source: string;
    let ladder: Awaited<ReturnType<typeof markLadder>>;
    const saved: string[] = [];

    it("marks the source; a member's stream is as faithful to the source as the same ladder unmarked", async () => {
      source = await makeSource(kind, path.join(fixtures, `${kind}.mp4`), SIZE);
      ladder = await markLadder(source, path.join(fixtures, `${kind}-ladder`), `corpus-${kind}`, { ...SIZE, preset: 'ultrafast' });
      ladders.set(kind, ladder);
      const top = ladder.renditions[0]?.name as string;
      for (const [i, s] of secrets.entries())
        saved.push(
          await saveStream(
            memberPlaylist(ladder, top, s, path.join(fixtures, `${kind}-${i}.m3u8`)),
            path.join(fixtures, `${kind}-${i}.ts`),
          ),
        );
      const plain = await markLadder(source, path.join(fixtures, `${kind}-plain`), `corpus-${kind}`, {
        ...SIZE,
        preset: 'ultrafast',
        unmarked: true,
      });
      const unmarked = path.join(fixtures, `${kind}-plain.ts`);
      await saveStream(path.join(plain.dir, top, 'index.m3u8'), unmarked);
      const between = await psnrSsim(saved[0] as string, saved[1] as string);
      const marked = await psnrSsim(saved[0] as string, source);
      const baseline = await psnrSsim(unmarked, source);
      console.log(
        `[leak corpus] ${kind}: members' streams ${between.psnr.toFixed(2)} dB apart (SSIM ${between.ssim.toFixed(4)}); ` +
          `against the source: marked ${marked.psnr.toFixed(2)} dB, unmarked ${baseline.psnr.toFixed(2)} dB`,
      );
      expect(marked.psnr).toBeGreaterThanOrEqual(baseline.psnr - 0.5);
      // Invisible between members, yet there to be read: the two streams are not the same picture.
      expect(between.psnr).toBeGreaterThanOrEqual(42);
      expect(between.psnr).toBeLessThan(60);
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

describe('leak tracing on a 4 % crop of footage with hard cuts and fades', () => {
  const secret = randomBytes(32);

  it('a cropped 24 fps capture whose samples fall just before the cuts is found to be this video, and names its member', async () => {
    const source = await makeSource('cuts-fades', path.join(fixtures, 'cuts-fades.mp4'), SIZE);
    const ladder = await markLadder(source, path.join(fixtures, 'cuts-fades-ladder'), 'corpus-cuts-fades', {
      ...SIZE,
      preset: 'ultrafast',
    });
    const top = ladder.renditions[0]?.name as string;
    const stream = await saveStream(
      memberPlaylist(ladder, top, secret, path.join(fixtures, 'cuts-fades.m3u8')),
      path.join(fixtures, 'cuts-fades.ts'),
    );
    // From 11.48 s at 24 fps: every half second a frame at x.98 s, the last before the cuts at 12 s,
    // 16 s…, next to the video's frame after the cut.
    const copy = await leakCopy(
      stream,
      path.join(fixtures, 'cuts-fades-crop-24fps.mp4'),
      {
        text: 'cut at 11.48 s, 24 fps, 4 % cropped, 640×360, CRF 28',
        start: 11.48,
        filter: 'fps=24,crop=iw*0.96:ih*0.96:iw*0.015:ih*0.025,scale=640:360',
        crf: 28,
      },
      62,
    );
    const ref = storedReference(ladder.dir, ladder.videoId);
    const frames = await grayFrames(copy);
    const whole = align(ref.mean, ref.rate, frames, ref.sourceRate);
    const located = locateCopy(ref, frames);
    console.log(
      `[leak corpus] cuts-fades cropped capture: whole frames ${whole?.score.toFixed(3)}, through its crop ${located?.score.toFixed(3)}`,
    );
    // (At 360p the bench measures whole frames at 0.86 for such copies; the unit tests pin the two causes.)
    expect(located?.score).toBeGreaterThanOrEqual(MIN_ALIGNMENT);
    expect(located?.score).toBeGreaterThanOrEqual(whole?.score ?? 1);
    const v = await nameOf(ladder, copy, [secret]);
    expect(v, JSON.stringify(v)).toMatchObject({ kind: 'identified', memberId: 'member-0' });

    // The crop search lifts no other video to MIN_ALIGNMENT: this copy read against the other
    // sources' references, and their copies against this one.
    expect(ladders.size).toBe(2);
    for (const [kind, other] of ladders) {
      expect(locateCopy(storedReference(other.dir, other.videoId), frames)?.score ?? -1, kind).toBeLessThan(MIN_ALIGNMENT);
      const theirs = await grayFrames(path.join(fixtures, `${kind}-leak-0.mp4`));
      expect(locateCopy(ref, theirs)?.score ?? -1, kind).toBeLessThan(MIN_ALIGNMENT);
    }
  }, 600_000);
});
