/**
 * B's segments as A's with B's keyframe (keyframeSplice.ts), on the server's own marked ladder
 * command's output (ladder.ts, real ffmpeg): grainy footage, where two encodes drift apart. The
 * spliced segment decodes without an error, its keyframe is B's picture to the bit and its other
 * frames stay with A's, its audio is A's byte for byte, every packet counts on from the one before,
 * and what is not two encodes of one segment is refused.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/harness';
import { ffmpeg, withoutReporting } from '../forensics/corpus.testkit';
import { patternExpression, patternShape } from '../forensics/pattern';
import { mediaBinaries } from '../media/ffmpeg';
import { spliceKeyframe } from './keyframeSplice';
import { ladderArgs, planLadder } from './ladder';

const run = promisify(execFile);
const fixtures = tmpDir('keyframe-splice-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const SIZE = { width: 320, height: 180 };
const seg = (variant: string, k: number) => path.join(fixtures, variant, `seg_${String(k).padStart(5, '0')}.ts`);

/** Every frame of a file as 8-bit gray, one Buffer per frame; and what ffmpeg said while decoding. */
async function decode(file: string): Promise<{ frames: Buffer[]; errors: string }> {
  const { stdout, stderr } = await run(
    mediaBinaries().ffmpeg,
    ['-hide_banner', '-nostdin', '-v', 'warning', '-i', file, '-map', '0:v', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { encoding: 'buffer', maxBuffer: 1 << 28 },
  );
  const size = SIZE.width * SIZE.height;
  const frames = Array.from({ length: stdout.length / size }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
  return { frames, errors: stderr.toString() };
}

/** Mean squared difference of two gray frames. */
function mse(x: Buffer, y: Buffer): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += ((x[i] as number) - (y[i] as number)) ** 2;
  return sum / x.length;
}

/** The audio stream's packets, copied out as ADTS. */
async function audio(file: string): Promise<Buffer> {
  const { stdout } = await run(
    mediaBinaries().ffmpeg,
    ['-hide_banner', '-nostdin', '-v', 'error', '-i', file, '-map', '0:a', '-c', 'copy', '-f', 'adts', '-'],
    { encoding: 'buffer', maxBuffer: 1 << 26 },
  );
  return stdout;
}

/** Each PID's continuity counters, in order, counting only packets that carry a payload. */
function counterBreaks(ts: Buffer): number {
  const last = new Map<number, number>();
  let breaks = 0;
  for (let at = 0; at < ts.length; at += 188) {
    const pid = (((ts[at + 1] as number) & 0x1f) << 8) | (ts[at + 2] as number);
    if (!(((ts[at + 3] as number) >> 4) & 1)) continue;
    const cc = (ts[at + 3] as number) & 0x0f;
    const before = last.get(pid);
    if (before !== undefined && cc !== ((before + 1) & 0x0f)) breaks++;
    last.set(pid, cc);
  }
  return breaks;
}

beforeAll(async () => {
  const renditions = planLadder(SIZE);
  for (const dir of [fixtures, path.join(fixtures, 'other')]) {
    for (const r of renditions) for (const v of [r.name, `${r.name}_b`]) fs.mkdirSync(path.join(dir, v), { recursive: true });
    fs.mkdirSync(path.join(dir, 'sprites'));
  }
  // A test card under heavy grain (new in every frame), with a tone: 6 one-second segments.
  const source = path.join(fixtures, 'source.mp4');
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=6,scale=320:180:flags=bicubic,noise=alls=18:allf=t'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=330:duration=6'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '16', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', source],
  ]);
  const ladder = (outDir: string, preset: string) =>
    ladderArgs({
      input: source,
      outDir,
      renditions,
      hasAudio: true,
      durationSeconds: 6,
      preset,
      watermark: { lumaExpression: patternExpression(patternShape('splice')), segmentSeconds: 1 },
    });
  await ffmpeg(withoutReporting(ladder(fixtures, 'ultrafast')));
  // The same ladder by another preset: its encoder's parameter sets are not the same (CABAC and more).
  await ffmpeg(withoutReporting(ladder(path.join(fixtures, 'other'), 'veryfast')));
}, 120_000);

describe('spliceKeyframe', () => {
  it("decodes cleanly to B's keyframe followed by A's frames, with A's audio and unbroken packet counters", async () => {
    const rendition = planLadder(SIZE)[0]?.name as string;
    for (const k of [0, 3]) {
      const a = fs.readFileSync(seg(rendition, k));
      const b = fs.readFileSync(seg(`${rendition}_b`, k));
      const spliced = path.join(fixtures, `spliced-${k}.ts`);
      fs.writeFileSync(spliced, spliceKeyframe(a, b));

      const [da, db, ds] = await Promise.all([decode(seg(rendition, k)), decode(seg(`${rendition}_b`, k)), decode(spliced)]);
      expect(ds.errors).toBe('');
      expect(ds.frames.length).toBe(da.frames.length);
      expect(ds.frames.length).toBeGreaterThanOrEqual(29);
      // The keyframe is B's own picture, bit for bit.
      expect(ds.frames[0]?.equals(db.frames[0] as Buffer)).toBe(true);
      expect(ds.frames[0]?.equals(da.frames[0] as Buffer)).toBe(false);
      // The last frame: A's picture but for the mark B's keyframe carried forward; B's own encode drifted much further.
      const lastS = ds.frames[ds.frames.length - 1] as Buffer;
      const lastA = da.frames[da.frames.length - 1] as Buffer;
      const lastB = db.frames[db.frames.length - 1] as Buffer;
      expect(mse(lastS, lastA)).toBeLessThan(mse(lastB, lastA) / 3);

      expect((await audio(spliced)).equals(await audio(seg(rendition, k)))).toBe(true);
      expect(counterBreaks(fs.readFileSync(spliced))).toBe(0);
    }
  });

  it('refuses what is not the same segment of two encodes with the same parameter sets', () => {
    const rendition = planLadder(SIZE)[0]?.name as string;
    const a = fs.readFileSync(seg(rendition, 2));
    // Another segment: its keyframe is another moment.
    expect(() => spliceKeyframe(a, fs.readFileSync(seg(`${rendition}_b`, 3)))).toThrow(/differ in time/);
    // The same moment from an encode with other settings: A's frames could not be decoded after its keyframe.
    expect(() => spliceKeyframe(a, fs.readFileSync(path.join(fixtures, 'other', `${rendition}_b`, 'seg_00002.ts')))).toThrow(
      /parameter sets/,
    );
    // Not MPEG-TS at all.
    expect(() => spliceKeyframe(a, Buffer.from('#EXTM3U\n'))).toThrow(/not an MPEG-TS segment/);
    expect(() => spliceKeyframe(Buffer.alloc(188 * 3), a)).toThrow(/not an MPEG-TS segment/);
  });
});
