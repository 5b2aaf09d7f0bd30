/**
 * HLS transcode speed and disk use, with the server's own ffmpeg command (packages/api/src/transcode/
 * ladder.ts: one decode, split, scaled, x264 + AAC, AES-128 MPEG-TS segments, preview sprites):
 *
 *   - each rendition alone: seconds of ffmpeg (wall clock, and CPU user+sys) per second of video;
 *   - the whole ladder in one run, as the worker runs it;
 *   - bytes written per rendition → disk use per hour of video.
 *
 * The source is synthetic (testsrc2 with temporal noise, so x264 has real work and the bitrates are
 * reached), made by ffmpeg first and not counted.
 *
 *   npx tsx bench/transcode.ts [--seconds 20] [--preset veryfast] [--uhd] [--quick|--smoke]   (--uhd: a 4K source too, for 2160p; --quick: 4 s; --smoke: 1 s)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mediaBinaries } from '../packages/api/src/media/ffmpeg.js';
import { ladderArgs, planLadder, type Rendition } from '../packages/api/src/transcode/ladder.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
const SECONDS = Number(arg('seconds', process.argv.includes('--smoke') ? '1' : process.argv.includes('--quick') ? '4' : '20'));
const PRESET = arg('preset', 'veryfast');
const UHD = process.argv.includes('--uhd');
const ffmpeg = mediaBinaries().ffmpeg;
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-transcode-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

function source(width: number, height: number, seconds: number): string {
  const out = path.join(work, `source-${height}.mp4`);
  const r = spawnSync(ffmpeg, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=duration=${seconds}:size=${width}x${height}:rate=30,noise=alls=12:allf=t`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-crf',
    '18',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    out,
  ]);
  if (r.status !== 0) throw new Error(`source: ${r.stderr}`);
  return out;
}

interface Run {
  wall: number;
  cpu: number | null;
  bytes: Map<string, number>;
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? bytesUnder(p) : fs.statSync(p).size;
  }
  return total;
}

function transcode(input: string, renditions: Rendition[]): Run {
  const outDir = path.join(work, `out-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(path.join(outDir, 'sprites'), { recursive: true });
  for (const r of renditions) fs.mkdirSync(path.join(outDir, r.name));
  const keyFile = path.join(work, 'key.bin');
  fs.writeFileSync(keyFile, randomBytes(16));
  const keyInfo = path.join(work, 'key.info');
  fs.writeFileSync(keyInfo, `key\n${keyFile}\n${randomBytes(16).toString('hex')}\n`);
  const args = ladderArgs({
    input,
    outDir,
    keyInfoFile: keyInfo,
    renditions,
    hasAudio: true,
    durationSeconds: SECONDS,
    preset: PRESET,
  }).filter((a, i, all) => !(a === '-progress' || all[i - 1] === '-progress' || a === '-stats_period' || all[i - 1] === '-stats_period'));
  const started = process.hrtime.bigint();
  const r = TIME
    ? spawnSync(TIME, ['-f', 'cpu %U %S', ffmpeg, ...args], { encoding: 'utf8' })
    : spawnSync(ffmpeg, args, { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr}`);
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  const bytes = new Map(renditions.map((x) => [x.name, bytesUnder(path.join(outDir, x.name))]));
  bytes.set('sprites', bytesUnder(path.join(outDir, 'sprites')));
  fs.rmSync(outDir, { recursive: true, force: true });
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : null, bytes };
}

const gbPerHour = (bytes: number) => ((bytes / SECONDS) * 3600) / 1e9;
const fmt = (n: number, d = 2) => n.toFixed(d);

const sources: { label: string; file: string; ladder: Rendition[] }[] = [];
sources.push({ label: '1920×1080', file: source(1920, 1080, SECONDS), ladder: planLadder({ width: 1920, height: 1080 }) });
if (UHD) {
  const uhd = planLadder({ width: 3840, height: 2160 });
  sources.push({ label: '3840×2160', file: source(3840, 2160, SECONDS), ladder: uhd.slice(0, 1) });
}

console.log(
  `HLS transcode, x264 preset ${PRESET}, ${SECONDS} s of synthetic ${sources.map((s) => s.label).join(' and ')} video, ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}`,
);
console.log('| rendition | target video kbit/s | wall s per video s | CPU s per video s | GB per hour (measured) |');
console.log('| --- | --- | --- | --- | --- |');
let ladderBytes = 0;
for (const s of sources) {
  for (const r of s.ladder) {
    const run = transcode(s.file, [r]);
    const bytes = run.bytes.get(r.name) ?? 0;
    ladderBytes += bytes;
    console.log(
      `| ${r.name} (${r.width}×${r.height}) | ${r.videoKbps} | ${fmt(run.wall / SECONDS)} | ${run.cpu === null ? 'n/a' : fmt(run.cpu / SECONDS)} | ${fmt(gbPerHour(bytes))} |`,
    );
  }
}
const main = sources[0] as (typeof sources)[number];
const whole = transcode(main.file, main.ladder);
const wholeBytes = [...whole.bytes.values()].reduce((a, b) => a + b, 0);
console.log(
  `| whole 1080p ladder in one run (${main.ladder.map((r) => r.name).join(', ')} + sprites) | ${main.ladder.reduce((a, r) => a + r.videoKbps, 0)} | ${fmt(whole.wall / SECONDS)} | ${whole.cpu === null ? 'n/a' : fmt(whole.cpu / SECONDS)} | ${fmt(gbPerHour(wholeBytes))} |`,
);
console.log(`sprites: ${fmt((((whole.bytes.get('sprites') ?? 0) / SECONDS) * 3600) / 1e6, 1)} MB per hour`);
if (UHD) console.log(`ladder with the 2160p rendition: ${fmt(gbPerHour(ladderBytes))} GB per hour (sum of the renditions above)`);
