/**
 * The forensic watermark's cost (docs/leak-tracing.md), with the server's own ffmpeg command
 * (packages/api/src/transcode/ladder.ts) on a synthetic 640×360 source:
 *
 *   - transcode CPU-seconds (user+sys of ffmpeg) per second of video, marked (A/B, 1 s segments) against unmarked;
 *   - segment bytes written, marked against unmarked (the storage overhead);
 *   - a member's marked stream and the unmarked ladder, each against the source (PSNR: the picture's cost);
 *   - the time to identify a 75 s copy: decode it to the detector's frames, align it, read its bits
 *     and match them against 100 000 random member codes (forensics/detect.ts, code.ts);
 *   - the matching alone (the bits already read) against those codes.
 *
 *   npx tsx bench/watermark.ts [--seconds 80] [--members 100000] [--quick]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allowedErrors, codeBits } from '../packages/api/src/forensics/code.js';
import { psnrSsim, withoutReporting } from '../packages/api/src/forensics/corpus.testkit.js';
import { grayFrames } from '../packages/api/src/forensics/frames.js';
import { readCopy, storedReference } from '../packages/api/src/forensics/identify.js';
import { MARKED_SEGMENT_SECONDS, patternExpression, patternShape } from '../packages/api/src/forensics/pattern.js';
import { mediaBinaries } from '../packages/api/src/media/ffmpeg.js';
import { ladderArgs, planLadder } from '../packages/api/src/transcode/ladder.js';
import { prepareMarkedVariants } from '../packages/api/src/transcode/watermarkVariants.js';
import { QUICK, report, SMOKE } from './lib/report.mjs';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const SECONDS = Number(arg('seconds', SMOKE ? '12' : QUICK ? '45' : '80'));
const MEMBERS = Number(arg('members', SMOKE ? '1000' : QUICK ? '10000' : '100000'));
const ffmpeg = mediaBinaries().ffmpeg;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-watermark-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

function ff(args: string[]) {
  const r = spawnSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(String(r.stderr));
}
const source = path.join(work, 'source.mp4');
ff([
  ...['-f', 'lavfi', '-i', `testsrc2=size=160x90:rate=30:duration=${SECONDS},scale=640:360:flags=bicubic,noise=alls=4:allf=t`],
  ...[
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${SECONDS}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '18',
    '-c:a',
    'aac',
    '-shortest',
    source,
  ],
]);

/** CPU seconds of every child run and reaped so far (cutime + cstime of /proc/self/stat, in clock ticks of 1/100 s). */
function childCpu(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[13]) + Number(f[14])) / 100;
}

function bytesOf(dir: string, match: RegExp): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && match.test(e.name)) total += fs.statSync(path.join(e.parentPath, e.name)).size;
  return total;
}

const renditions = planLadder({ width: 640, height: 360 });
const runs: Record<string, { cpu: number; bytes: number }> = {};
for (const marked of [false, true]) {
  const out = path.join(work, marked ? 'marked' : 'plain');
  for (const r of renditions) {
    fs.mkdirSync(path.join(out, r.name), { recursive: true });
    if (marked) fs.mkdirSync(path.join(out, `${r.name}_b`), { recursive: true });
  }
  fs.mkdirSync(path.join(out, 'sprites'), { recursive: true });
  const before = childCpu();
  const args = ladderArgs({
    input: source,
    outDir: out,
    renditions,
    hasAudio: true,
    durationSeconds: SECONDS,
    preset: 'veryfast',
    ...(marked && { watermark: { lumaExpression: patternExpression(patternShape('bench')), segmentSeconds: MARKED_SEGMENT_SECONDS } }),
  });
  ff(withoutReporting(args));
  runs[marked ? 'marked' : 'plain'] = { cpu: childCpu() - before, bytes: bytesOf(out, /\.ts$/) };
}
const plain = runs.plain as { cpu: number; bytes: number };
const marked = runs.marked as { cpu: number; bytes: number };
report({
  figure: `Transcode CPU per second of video with the forensic mark (640×360 → 360p A/B, veryfast, ${SECONDS} s)`,
  ours: Number((marked.cpu / SECONDS).toFixed(3)),
  unit: 'CPU-s/video-s',
  reference: Number((plain.cpu / SECONDS).toFixed(3)),
  referenceLabel: 'the same ladder unmarked',
  target: 'report',
});
report({
  figure: 'Segment storage with the forensic mark (A and B)',
  ours: Math.round(marked.bytes / 1024),
  unit: 'KiB',
  reference: Math.round(plain.bytes / 1024),
  referenceLabel: 'unmarked segments',
  target: 'report',
});

// B as members get it (A's segments with B's keyframes), and the detector's reference.
await prepareMarkedVariants(path.join(work, 'marked'), renditions);

// A member's 75 s copy: their mix of A and B, then cut, scaled to 640×360 and re-encoded at CRF 28.
const name = renditions[0]?.name as string;
const starts = [0];
for (const m of fs.readFileSync(path.join(work, 'marked', name, 'index.m3u8'), 'utf8').matchAll(/^#EXTINF:([\d.]+)/gm))
  starts.push((starts[starts.length - 1] ?? 0) + Number(m[1]));
const secret = randomBytes(32);
const bits = codeBits(secret, 'bench', 0, starts.length);
const list = path.join(work, 'member.m3u8');
let k = 0;
fs.writeFileSync(
  list,
  fs
    .readFileSync(path.join(work, 'marked', name, 'index.m3u8'), 'utf8')
    .replace(/^seg_(\d{5})\.ts$/gm, (line) => path.join(work, 'marked', bits[k++] ? `${name}_b` : name, line)),
);
// What the mark costs a member's picture: their stream and the unmarked ladder, each against the source.
const memberTs = path.join(work, 'member.ts');
const plainTs = path.join(work, 'plain.ts');
ff(['-allowed_extensions', 'ALL', '-i', list, '-map', '0:v', '-c', 'copy', memberTs]);
ff(['-i', path.join(work, 'plain', name, 'index.m3u8'), '-map', '0:v', '-c', 'copy', plainTs]);
const fidelity = { member: await psnrSsim(source, memberTs), plain: await psnrSsim(source, plainTs) };
report({
  figure: "Fidelity to the source: a member's marked stream (1 s segments, A/B with B's keyframe), PSNR",
  ours: Number(fidelity.member.psnr.toFixed(2)),
  unit: 'dB',
  reference: Number(fidelity.plain.psnr.toFixed(2)),
  referenceLabel: 'the same ladder unmarked',
  target: 'report',
});

const copy = path.join(work, 'copy.mp4');
const copySeconds = Math.min(75, SECONDS - 3);
ff([
  '-allowed_extensions',
  'ALL',
  '-i',
  list,
  '-ss',
  '2',
  '-t',
  String(copySeconds),
  '-vf',
  'scale=640:360',
  '-c:v',
  'libx264',
  '-preset',
  'ultrafast',
  '-crf',
  '28',
  '-an',
  copy,
]);
const ref = storedReference(path.join(work, 'marked'), 'bench');
const members = Array.from({ length: MEMBERS - 1 }, () => randomBytes(32)).concat([secret]);
const t0 = performance.now();
const reads = (await readCopy(ref, await grayFrames(copy))).reads.filter((r) => r.bit !== null);
const first = reads[0]?.index ?? 0;
const span = (reads[reads.length - 1]?.index ?? 0) - first + 1;
let best = Number.POSITIVE_INFINITY;
let bestIndex = -1;
const matchStart = performance.now();
members.forEach((s, i) => {
  const code = codeBits(s, 'bench', first, span);
  const d = reads.filter((r) => code[r.index - first] !== r.bit).length;
  if (d < best) [best, bestIndex] = [d, i];
});
const matchSeconds = (performance.now() - matchStart) / 1000;
const seconds = (performance.now() - t0) / 1000;
const named = bestIndex === members.length - 1 && best <= (allowedErrors(reads.length) ?? -1);
report({
  figure: `Time to identify a ${copySeconds} s copy (640×360 CRF 28) against ${MEMBERS.toLocaleString('en')} member codes`,
  ours: Number(seconds.toFixed(2)),
  unit: 's',
  target: 'report',
  pass: named,
  note: `${reads.length} clear bits, ${best} differing; ${named ? 'named its member' : 'did NOT name its member'}`,
});
report({
  figure: `Matching alone (the bits already read from the copy) against ${MEMBERS.toLocaleString('en')} member codes`,
  ours: Number(matchSeconds.toFixed(3)),
  unit: 's',
  target: 'report',
  pass: named,
  note: `${reads.length} clear bits over ${span} positions: one HMAC-SHA256 per member per 256 positions, then the distance`,
});
