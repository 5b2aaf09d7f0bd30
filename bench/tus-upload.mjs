#!/usr/bin/env node
/**
 * tus upload benchmark: starts the real server in a child process and uploads a real video
 * (raw YUV in Matroska made by ffmpeg, default 500 MB) with the real tus-js-client over loopback,
 * as one PATCH and in 64 MB chunks. Prints throughput (bytes over the whole upload, including
 * ffprobe, the move into storage and the thumbnail at the end) and the server's peak RSS growth
 * (VmRSS from /proc) against the 64 MB upload budget; exits 1 over budget or on a failed upload.
 *
 * The reference is a physical limit (lib/uploadLimits.mjs): nginx writing the same bytes, PUT over
 * loopback, to a file on the same disk (`client_body_in_file_only`). The three run interleaved, in
 * a rotating order, `--rounds` times, each after a `sync` (no run pays for the previous one's dirty
 * pages); each figure is the median with its min–max, each ratio the median of the rounds' ratios.
 *
 *   node bench/tus-upload.mjs [--mb 500] [--rounds 3]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { ROOT, rssMb, startBenchServer } from './lib/benchServer.mjs';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';
import { startNginxBodySink } from './lib/uploadLimits.mjs';

const BUDGET_MB = 64;
const MB = 1024 * 1024;
const i = process.argv.indexOf('--mb');
const SIZE_MB = i > 0 ? Number(process.argv[i + 1]) : Number(process.env.BENCH_MB ?? (SMOKE ? 8 : QUICK ? 32 : 500));
const r = process.argv.indexOf('--rounds');
const ROUNDS = r > 0 ? Number(process.argv[r + 1]) : SMOKE ? 1 : QUICK ? 2 : 3;

const requireApi = createRequire(path.join(ROOT, 'packages/api/package.json'));
const tus = requireApi('tus-js-client');

const ffmpeg = process.env.FFMPEG_PATH ?? (fs.existsSync('/usr/bin/ffmpeg') ? '/usr/bin/ffmpeg' : 'ffmpeg');

async function startServer(dataDir) {
  const server = await startBenchServer(dataDir);
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(server.admin),
  });
  const body = await res.json();
  if (!body.success) throw new Error(`admin login failed: ${body.error}`);
  return { ...server, token: body.data.token };
}

function upload(server, file, chunkSize) {
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(fs.createReadStream(file), {
      endpoint: `${server.url}/api/admin/uploads`,
      metadata: { filename: path.basename(file), title: `bench ${chunkSize}` },
      headers: { Authorization: `Bearer ${server.token}` },
      chunkSize,
      retryDelays: null,
      storeFingerprintForResuming: false,
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Upload-Video-Id')),
      onError: reject,
    });
    u.start();
  });
}

async function measure(pid, label, bytes, run) {
  const baseline = rssMb(pid);
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 25);
  const started = performance.now();
  let videoId;
  try {
    videoId = await run();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, rssMb(pid));
  return { label, bytes, baseline, peak, growth: peak - baseline, seconds: (performance.now() - started) / 1000, videoId };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tus-'));
  fs.chmodSync(work, 0o755); // nginx's worker (nobody, when started as root) writes under it
  const server = await startServer(path.join(work, 'data'));
  const sink = await startNginxBodySink(path.join(work, 'nginx-sink'));
  const results = [];
  try {
    const warm = path.join(work, 'warm.mp4');
    execFileSync(ffmpeg, ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=5', '-pix_fmt', 'yuv420p', warm]);
    await upload(server, warm, Number.POSITIVE_INFINITY);
    const real = path.join(work, 'real.mkv');
    const seconds = Math.max(1, Math.round((SIZE_MB * MB) / (320 * 240 * 1.5 * 30)));
    execFileSync(ffmpeg, [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=30`],
      ...['-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', real],
    ]);
    const size = fs.statSync(real).size;
    const runs = [
      { label: 'one PATCH', run: () => measure(server.child.pid, 'one PATCH', size, () => upload(server, real, Number.POSITIVE_INFINITY)) },
      { label: '64 MB chunks', run: () => measure(server.child.pid, '64 MB chunks', size, () => upload(server, real, 64 * MB)) },
      { label: 'nginx', run: async () => ({ mbps: await sink.put(real) }) },
    ];
    const mbps = Object.fromEntries(runs.map((x) => [x.label, []]));
    console.log(`${(size / MB).toFixed(0)} MB, ${ROUNDS} rounds, interleaved (MB/s):`);
    for (let round = 0; round < ROUNDS; round++) {
      // A rotating order: no variant always runs first (or right after the file was written).
      const order = runs.map((_, k) => runs[(k + round) % runs.length]);
      const line = [];
      for (const { label, run } of order) {
        // Each run starts with the page cache clean: dirty pages left by the previous 500 MB would
        // throttle the next writer (the kernel's writeback), whichever it is.
        execFileSync('sync');
        const m = await run();
        if (m.seconds !== undefined) {
          results.push(m);
          mbps[label].push(m.bytes / MB / m.seconds);
        } else mbps[label].push(m.mbps);
        line.push(`${label} ${mbps[label].at(-1).toFixed(0)}`);
      }
      console.log(`  round ${round + 1}: ${line.join(', ')}`);
    }
    const nginx = spread(mbps.nginx);
    for (const label of ['one PATCH', '64 MB chunks']) {
      const ours = spread(mbps[label]);
      const mine = results.filter((x) => x.label === label);
      const growth = Math.max(...mine.map((x) => x.growth));
      const ratio = spread(mbps[label].map((v, k) => v / mbps.nginx[k]));
      report({
        figure: `Upload ${(size / MB).toFixed(0)} MB over tus, ${label} (whole upload incl. ffprobe and thumbnail; RSS growth ${growth.toFixed(0)} MB; ${ROUNDS} rounds)`,
        ours: ours.median,
        oursRange: ours.range,
        unit: 'MB/s',
        reference: nginx.median,
        referenceRange: nginx.range,
        referenceLabel: 'nginx writing the body to a file',
        ratio: ratio.median,
        ratioRange: ratio.range,
        target: '≥ 0.7×, RSS growth ≤ 64 MB',
        pass: ratio.median >= 0.7 && growth <= BUDGET_MB && mine.every((x) => Boolean(x.videoId)),
      });
    }
  } finally {
    await sink.stop();
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    fs.rmSync(work, { recursive: true, force: true });
  }
  let failed = false;
  console.log(`\ntus upload benchmark over loopback (server RSS, budget ${BUDGET_MB} MB growth)`);
  for (const r of results) {
    // A budget miss is a figure (the table says **no**, like any missed target); only an upload that
    // did not do what it should fails the run.
    const done = Boolean(r.videoId);
    const ok = r.growth <= BUDGET_MB && done;
    failed ||= !done;
    console.log(
      `  ${r.label}: ${(r.bytes / MB / r.seconds).toFixed(0)} MB/s (${r.seconds.toFixed(1)} s), video ${r.videoId ?? 'none'}, ` +
        `RSS ${r.baseline.toFixed(0)} → peak ${r.peak.toFixed(0)} MB, growth ${r.growth.toFixed(1)} MB ${ok ? 'OK' : done ? 'over budget' : 'FAIL'}`,
    );
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
