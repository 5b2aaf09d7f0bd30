// Where a command's CPU goes, by kind of process: runs the command and reads every process's CPU
// time from /proc twice a second, adding each increase to the process's kind (an API server, a CLI
// run, a vitest worker, ffmpeg, Chromium, PostgreSQL, Ceph…), then prints the table. The suite keeps
// both cores of the CI machine busy, so its wall time is its CPU time over two: this says what to
// make cheaper. A process that lives less than half a second between two readings is missed, and
// the whole machine is counted, not only the command's children (run it on a quiet machine).
//   node scripts/cpu-by-process.mjs [--out FILE.json] -- pnpm test
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const sep = process.argv.indexOf('--');
if (sep < 0 || sep === process.argv.length - 1) {
  console.error('usage: node scripts/cpu-by-process.mjs [--out FILE.json] -- COMMAND [ARGS…]');
  process.exit(2);
}
const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 && outIndex < sep ? process.argv[outIndex + 1] : undefined;
const [cmd, ...args] = process.argv.slice(sep + 1);
const TICKS = 100; // USER_HZ: /proc's clock ticks per second on Linux

/** A process's kind, from its name and command line (read once, when it is first seen). */
function kindOf(comm, cmdline) {
  const both = `${comm} ${cmdline}`;
  if (comm === 'ffmpeg' || comm === 'ffprobe') return comm;
  if (/packages\/api\/dist\/main\.js|packages\/api\/src\/main\.ts/.test(cmdline)) return 'API server (child)';
  if (/packages\/api\/dist\/cli\.js|packages\/api\/src\/cli\/main\.ts/.test(cmdline)) return 'API CLI (child)';
  if (/^node \(vitest \d|tinypool|vitest\/dist\/workers/.test(cmdline)) return 'vitest worker (tests, in-process servers)';
  if (/vitest/.test(cmdline)) return 'vitest (main)';
  if (/bench\/[\w-]+\.(ts|mjs)/.test(cmdline)) return 'bench script';
  if (/chrom/i.test(comm)) return 'Chromium';
  if (/firefox|geckodriver|Web Content|Isolated Web|RDD Process|Socket Process|Privileged Cont|Utility Process/i.test(both))
    return 'Firefox';
  if (/webkit/i.test(both)) return 'WebKitGTK';
  if (/postgres/.test(both)) return 'PostgreSQL';
  if (/^(ceph-|radosgw|rados$)/.test(comm)) return 'Ceph';
  if (comm === 'nginx') return 'nginx';
  if (comm === 'wrk') return 'wrk';
  if (/Xvfb/.test(comm)) return 'Xvfb';
  if (/typescript\/bin\/tsc|compileWithEdits/.test(cmdline)) return 'TypeScript compiler';
  if (/vite(\.js)? build|\/vite\/bin/.test(cmdline)) return 'Vite build';
  if (/biome|dependency-cruiser|check-[\w-]+\.mjs/.test(both)) return 'lint';
  if (comm === 'esbuild') return 'esbuild';
  if (/^(node|MainThread)$/.test(comm)) return `node: ${cmdline.replace(/^\S*node\S*\s+/, '').slice(0, 60)}`;
  return `other: ${comm}`;
}

/** What an ffmpeg or ffprobe run is for, from its arguments: the media tier's biggest CPU user, split further. */
function mediaPurpose(cmdline) {
  if (/-f lavfi/.test(cmdline)) return 'a synthetic source (lavfi)';
  if (/hls_time|-f hls/.test(cmdline)) return 'an HLS ladder';
  if (/ -f rawvideo|pix_fmt gray/.test(cmdline)) return 'frames for the detector';
  if (/tile=/.test(cmdline)) return 'preview sprites';
  if (/-frames:v 1|-vframes 1/.test(cmdline)) return 'a still';
  if (/ffprobe/.test(cmdline)) return 'a probe';
  return cmdline.replace(/^\S+\s+/, '').slice(0, 50);
}

/** pid → kind, for naming an ffmpeg's parent. */
const kindByPid = new Map();
/** "ffmpeg ← parent's kind: purpose" → CPU seconds. */
const mediaDetail = new Map();

/** pid:start time → { comm, kind, CPU seconds already counted }. A process that execs another program keeps its pid (bash's last command): its kind follows the program. */
const seen = new Map();
const totals = new Map();
let first = true;
function read() {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const f = stat.slice(close + 2).split(' ');
    const cpu = (Number(f[11]) + Number(f[12])) / TICKS;
    const key = `${pid}:${f[19]}`;
    let entry = seen.get(key);
    if (!entry || entry.comm !== comm) {
      let cmdline = '';
      try {
        cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {}
      // What ran before the command started is not the command's.
      const kind = kindOf(comm, cmdline);
      const detail =
        kind === 'ffmpeg' || kind === 'ffprobe' ? `${kind} ← ${kindByPid.get(f[1]) ?? 'other'}: ${mediaPurpose(cmdline)}` : undefined;
      entry = { comm, kind, detail, counted: entry?.counted ?? (first ? cpu : 0) };
      seen.set(key, entry);
      kindByPid.set(pid, kind);
    }
    if (cpu > entry.counted) {
      totals.set(entry.kind, (totals.get(entry.kind) ?? 0) + cpu - entry.counted);
      if (entry.detail) mediaDetail.set(entry.detail, (mediaDetail.get(entry.detail) ?? 0) + cpu - entry.counted);
      entry.counted = cpu;
    }
  }
  first = false;
}

/** CPU-s the whole machine has spent busy so far (/proc/stat: every state but idle and iowait). */
function machineBusy() {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3] - ticks[4]) / TICKS;
}

read();
const busyAtStart = machineBusy();
const started = Date.now();
const timer = setInterval(read, 500);
const child = spawn(cmd, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  clearInterval(timer);
  read();
  const wall = (Date.now() - started) / 1000;
  const machine = machineBusy() - busyAtStart;
  const rows = [...totals].sort((a, b) => b[1] - a[1]);
  const sum = rows.reduce((s, [, v]) => s + v, 0);
  console.log(`\nCPU by kind of process: ${sum.toFixed(0)} CPU-s over ${wall.toFixed(0)} s of wall time`);
  // The difference: processes that lived less than a reading's interval, and the kernel's own work.
  console.log(
    `The whole machine: ${machine.toFixed(0)} CPU-s busy, ${(machine / wall).toFixed(2)} cores on average; ` +
      `${(machine - sum).toFixed(0)} CPU-s not counted above`,
  );
  for (const [kind, v] of rows.filter(([, v]) => v >= 1))
    console.log(`${v.toFixed(0).padStart(7)} s  ${((100 * v) / sum).toFixed(1).padStart(5)} %  ${kind}`);
  const media = [...mediaDetail].sort((a, b) => b[1] - a[1]);
  if (media.length > 0) console.log('\nffmpeg and ffprobe, by parent and purpose:');
  for (const [what, v] of media.filter(([, v]) => v >= 1)) console.log(`${v.toFixed(0).padStart(7)} s  ${what}`);
  if (out)
    fs.writeFileSync(
      out,
      `${JSON.stringify({ wallSeconds: wall, machineCpuSeconds: machine, cpuSeconds: Object.fromEntries(rows), mediaCpuSeconds: Object.fromEntries(media) }, null, 1)}\n`,
    );
  process.exit(code ?? (signal ? 1 : 0));
});
