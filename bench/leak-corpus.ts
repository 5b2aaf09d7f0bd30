/**
 * Leak tracing on realistic footage (issue 41, docs/leak-tracing.md): every source kind of the
 * corpus (packages/api/src/forensics/corpus.testkit.ts: grain, dark and moving, pans and zooms,
 * cuts and fades, fine texture, a mix) is marked with the server's own ladder command and reference
 * step, two members' streams are saved from the top rendition, and each is leaked every way of the
 * corpus (cut between two seconds, cropped, scaled to 640×360 or 426×240, CRF 28–32, re-graded,
 * captured at 24 fps, blurred), then read back. Prints:
 *
 *   - the table source kind × leak kind → named / no match / WRONG, clear bits, time to read;
 *   - PSNR and SSIM between the two members' streams per source (the mark's visibility);
 *   - the false-name rate: ≥ 1,000 random member codes against the bits read from every copy, plus
 *     copies of the unmarked sources and copies of other videos read against each reference.
 *
 *   npx tsx bench/leak-corpus.ts [--quick] [--sources grain-light,dark-motion] [--leaks blur] [--trials 1000]
 *
 * Full: 720p sources of 90 s and 70 s copies; --quick: 360p, 75 s sources, 62 s copies.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allowedErrors, codeBits } from '../packages/api/src/forensics/code.js';
import {
  LEAK_KINDS,
  LEAKS,
  type LeakKind,
  leakCopy,
  type MarkedLadder,
  makeSource,
  markLadder,
  memberPlaylist,
  psnrSsim,
  SOURCE_KINDS,
  type SourceKind,
  saveStream,
} from '../packages/api/src/forensics/corpus.testkit.js';
import { judgeCopy, MIN_ALIGNMENT, readCopy, storedReference } from '../packages/api/src/forensics/identify.js';
import { QUICK, report, SMOKE } from './lib/report.mjs';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const size = SMOKE
  ? { width: 320, height: 180, seconds: 40 }
  : QUICK
    ? { width: 640, height: 360, seconds: 75 }
    : { width: 1280, height: 720, seconds: 90 };
const COPY_SECONDS = SMOKE ? 30 : QUICK ? 62 : 70;
const sources = arg('sources', SMOKE ? 'grain-heavy' : SOURCE_KINDS.join(',')).split(',') as SourceKind[];
const leaks = arg('leaks', SMOKE ? 'cut-scale-crf28' : LEAK_KINDS.join(',')).split(',') as LeakKind[];
const TRIALS = Number(arg('trials', SMOKE ? '50' : '1000'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-leak-corpus-'));
process.on('exit', () => (process.env.KEEP_FIXTURES ? console.log(`kept ${work}`) : fs.rmSync(work, { recursive: true, force: true })));

interface Row {
  source: SourceKind;
  leak: LeakKind | 'unmarked' | 'other video';
  member: number;
  outcome: 'named' | 'no match' | 'WRONG' | 'too short';
  bits: number;
  differing: number | null;
  seconds: number;
}
const rows: Row[] = [];
const visibility: Array<{ source: SourceKind; psnr: number; ssim: number }> = [];
let falseTrials = 0;
let falseNames = 0;
const ladders = new Map<SourceKind, MarkedLadder>();
const unmarkedCopies = new Map<SourceKind, string>();

for (const source of sources) {
  const file = await makeSource(source, path.join(work, `${source}.mp4`), size);
  const ladder = await markLadder(file, path.join(work, `${source}-ladder`), `bench-${source}`, { ...size, preset: 'veryfast' });
  ladders.set(source, ladder);
  const ref = storedReference(ladder.dir, ladder.videoId);
  const top = ladder.renditions[0]?.name as string;
  const secrets = [randomBytes(32), randomBytes(32)];
  const saved = await Promise.all(
    secrets.map((s, i) =>
      saveStream(memberPlaylist(ladder, top, s, path.join(work, `${source}-m${i}.m3u8`)), path.join(work, `${source}-m${i}.ts`)),
    ),
  );
  const v = await psnrSsim(saved[0] as string, saved[1] as string);
  visibility.push({ source, ...v });
  console.log(`${source}: PSNR ${v.psnr.toFixed(2)} dB, SSIM ${v.ssim.toFixed(5)} between the two members' streams`);
  for (const leak of leaks)
    for (const [member, stream] of saved.entries()) {
      const copy = await leakCopy(stream, path.join(work, `${source}-${leak}-${member}.mp4`), leak, COPY_SECONDS);
      const t0 = performance.now();
      const read = await readCopy(ref, copy);
      const clear = read.score >= MIN_ALIGNMENT ? read.reads.filter((r) => r.bit !== null) : [];
      const first = clear[0]?.index ?? 0;
      const span = (clear[clear.length - 1]?.index ?? 0) - first + 1;
      const codes = secrets.map((secret, i) => ({ memberId: String(i), secret }));
      const v = read.score >= MIN_ALIGNMENT ? await judgeCopy(ref, read.reads, async () => codes) : ({ kind: 'no-match' } as const);
      const seconds = (performance.now() - t0) / 1000;
      const outcome =
        v.kind === 'identified' ? (v.memberId === String(member) ? 'named' : 'WRONG') : v.kind === 'too-short' ? 'too short' : 'no match';
      const own = codeBits(secrets[member] as Buffer, ladder.videoId, first, span);
      const differing = clear.filter((r) => own[r.index - first] !== r.bit).length;
      rows.push({ source, leak, member, outcome, bits: clear.length, differing, seconds });
      console.log(
        `  ${leak} member ${member}: ${outcome}, ${clear.length} clear bits of ${read.reads.length}, ${differing} differing, align ${read.score.toFixed(3)}, ${seconds.toFixed(1)} s`,
      );
      // Random codes against these bits: how often would a stranger be named?
      const allowed = allowedErrors(clear.length);
      for (let k = 0; k < TRIALS && allowed !== null; k++) {
        const bits = codeBits(randomBytes(32), ladder.videoId, first, span);
        const d = clear.filter((r) => bits[r.index - first] !== r.bit).length;
        falseTrials++;
        if (d <= allowed) falseNames++;
      }
    }
  unmarkedCopies.set(source, await leakCopy(file, path.join(work, `${source}-unmarked.mp4`), 'cut-scale-crf28', COPY_SECONDS));
}

// Copies that carry no mark of the video read against it: the unmarked source, and other videos.
let strangers = 0;
let strangersNamed = 0;
for (const [source, ladder] of ladders) {
  const ref = storedReference(ladder.dir, ladder.videoId);
  for (const [other, copy] of unmarkedCopies) {
    const read = await readCopy(ref, copy);
    const clear = read.score >= MIN_ALIGNMENT ? read.reads.filter((r) => r.bit !== null) : [];
    const codes = Array.from({ length: 200 }, (_, i) => ({ memberId: String(i), secret: randomBytes(32) }));
    const v = read.score >= MIN_ALIGNMENT ? await judgeCopy(ref, read.reads, async () => codes) : ({ kind: 'no-match' } as const);
    strangers++;
    if (v.kind === 'identified') strangersNamed++;
    rows.push({
      source,
      leak: other === source ? 'unmarked' : 'other video',
      member: -1,
      outcome: v.kind === 'identified' ? 'WRONG' : v.kind === 'too-short' ? 'too short' : 'no match',
      bits: clear.length,
      differing: null,
      seconds: 0,
    });
  }
}

console.log(`\n| source \\ leak | ${leaks.map((l) => LEAKS[l].text).join(' | ')} |`);
console.log(`|---|${leaks.map(() => '---').join('|')}|`);
for (const source of sources) {
  const cells = leaks.map((leak) =>
    rows
      .filter((r) => r.source === source && r.leak === leak)
      .map((r) => `${r.outcome} (${r.bits} bits, ${r.differing} off, ${r.seconds.toFixed(1)} s)`)
      .join('<br>'),
  );
  console.log(`| ${source} | ${cells.join(' | ')} |`);
}
console.log('\n| source | PSNR A/B streams (dB) | SSIM |\n|---|---|---|');
for (const v of visibility) console.log(`| ${v.source} | ${v.psnr.toFixed(2)} | ${v.ssim.toFixed(5)} |`);

const marked = rows.filter((r) => r.member >= 0);
const named = marked.filter((r) => r.outcome === 'named').length;
const wrong = rows.filter((r) => r.outcome === 'WRONG').length;
const minPsnr = Math.min(...visibility.map((v) => v.psnr));
report({
  figure: `Leaked copies (${COPY_SECONDS} s) named, ${sources.length} sources × ${leaks.length} leak kinds × 2 members (${size.height}p sources)`,
  ours: Number(((100 * named) / Math.max(1, marked.length)).toFixed(1)),
  unit: '%',
  target: '≥ 95 %, 0 wrong',
  pass: named / Math.max(1, marked.length) >= 0.95 && wrong === 0,
  note: `${named} of ${marked.length} named, ${wrong} wrong (unmarked and other videos included)`,
});
report({
  figure: "PSNR between two members' streams, lowest over the sources",
  ours: Number(minPsnr.toFixed(2)),
  unit: 'dB',
  target: '≥ 42 dB',
  pass: minPsnr >= 42,
  note: visibility.map((v) => `${v.source} ${v.psnr.toFixed(1)} dB / SSIM ${v.ssim.toFixed(4)}`).join(', '),
});
report({
  figure: `False names: random member codes against the bits read from every marked copy (${TRIALS} per copy)`,
  ours: falseNames,
  unit: 'names',
  target: '0',
  pass: falseNames === 0,
  note: `${falseTrials.toLocaleString('en')} trials; ${strangers} unmarked or other-video copies read against each reference: ${strangersNamed} named anyone`,
});
const times = marked.map((r) => r.seconds).sort((a, b) => a - b);
report({
  figure: `Time to read a ${COPY_SECONDS} s copy (decode, align, read the bits), median`,
  ours: Number((times[Math.floor(times.length / 2)] ?? 0).toFixed(2)),
  unit: 's',
  target: 'report',
  note: `max ${(times[times.length - 1] ?? 0).toFixed(2)} s`,
});
