#!/usr/bin/env node
/**
 * tus upload benchmark: starts the real server in a child process and uploads a real video
 * (raw YUV in Matroska made by ffmpeg, default 500 MB) with the real tus-js-client over loopback,
 * once as one PATCH and once in 64 MB chunks. Prints throughput (bytes over the whole upload,
 * including ffprobe, the move into storage and the thumbnail at the end) and the server's peak
 * RSS growth (VmRSS from /proc) against the 64 MB upload budget; exits 1 over budget or on a failed
 * upload.
 *
 *   node bench/tus-upload.mjs [--mb 500]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { postFile, ROOT, rssMb, startBenchServer, startPlainSink } from './lib/benchServer.mjs';
import { QUICK, report } from './lib/report.mjs';

const BUDGET_MB = 64;
const MB = 1024 * 1024;
const i = process.argv.indexOf('--mb');
const SIZE_MB = i > 0 ? Number(process.argv[i + 1]) : Number(process.env.BENCH_MB ?? (QUICK ? 32 : 500));

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
  const server = await startServer(path.join(work, 'data'));
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
    for (const [label, chunk] of [
      ['one PATCH', Number.POSITIVE_INFINITY],
      ['64 MB chunks', 64 * MB],
    ])
      results.push(await measure(server.child.pid, `${(size / MB).toFixed(0)} MB, ${label}`, size, () => upload(server, real, chunk)));
    // The reference: the same bytes, one POST, to a plain sink that only writes them to disk.
    const sinkDir = path.join(work, 'sink');
    fs.mkdirSync(sinkDir);
    const sink = await startPlainSink(sinkDir);
    try {
      const t = performance.now();
      await postFile(sink.url, real);
      const refMbps = size / MB / ((performance.now() - t) / 1000);
      for (const r of results) {
        const mbps = r.bytes / MB / r.seconds;
        report({
          figure: `Upload ${(size / MB).toFixed(0)} MB over tus, ${r.label.split(', ')[1]} (whole upload incl. ffprobe and thumbnail; RSS growth ${r.growth.toFixed(0)} MB)`,
          ours: mbps,
          unit: 'MB/s',
          reference: refMbps,
          referenceLabel: 'plain sink writing to disk',
          target: '≥ 0.7×, RSS growth ≤ 64 MB',
          pass: mbps / refMbps >= 0.7 && r.growth <= BUDGET_MB && Boolean(r.videoId),
        });
      }
    } finally {
      sink.child.kill('SIGTERM');
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    fs.rmSync(work, { recursive: true, force: true });
  }
  let failed = false;
  console.log(`\ntus upload benchmark over loopback (server RSS, budget ${BUDGET_MB} MB growth)`);
  for (const r of results) {
    const ok = r.growth <= BUDGET_MB && Boolean(r.videoId);
    failed ||= !ok;
    console.log(
      `  ${r.label}: ${(r.bytes / MB / r.seconds).toFixed(0)} MB/s (${r.seconds.toFixed(1)} s), video ${r.videoId ?? 'none'}, ` +
        `RSS ${r.baseline.toFixed(0)} → peak ${r.peak.toFixed(0)} MB, growth ${r.growth.toFixed(1)} MB ${ok ? 'OK' : 'FAIL'}`,
    );
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
