#!/usr/bin/env node
/**
 * Upload memory benchmark: starts the real server in a child process and measures its resident
 * memory (VmRSS from /proc) while admin uploads stream through POST /api/admin/upload-video.
 *
 *   phase 1: a large multipart body (default 1 GiB, `--gb 2` for 2 GiB) whose file part is filler,
 *            streamed to disk and then refused at the ffprobe step (400), so the whole body crosses
 *            the receive path without a long ffmpeg run;
 *   phase 2: a real video (raw YUV in Matroska made by ffmpeg, default 256 MB) that is probed,
 *            stored and thumbnailed (201).
 *
 * Prints the peak RSS growth of the server per phase and its ratio to the 64 MB budget; exits 1
 * when a phase goes over budget or answers an unexpected status. The filler's throughput is
 * compared with a limit (lib/uploadLimits.mjs): the same client sending the same body to nginx,
 * which writes it to a file on the same disk (`client_body_in_file_only`).
 *
 *   node bench/upload-memory.mjs [--gb 1] [--real-mb 256]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { ROOT, rssMb, startBenchServer } from './lib/benchServer.mjs';
import { QUICK, report, SMOKE } from './lib/report.mjs';
import { startNginxBodySink } from './lib/uploadLimits.mjs';

const BUDGET_MB = 64;
const MB = 1024 * 1024;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : Number(process.env[`BENCH_${name.toUpperCase().replace('-', '_')}`] ?? fallback);
}
const FILLER_BYTES = Math.round(arg('gb', QUICK ? 0.125 : 1) * 1024 * MB);
const REAL_MB = arg('real-mb', SMOKE ? 8 : QUICK ? 32 : 256);

function ffmpegBinary() {
  if (process.env.FFMPEG_PATH) return process.env.FFMPEG_PATH;
  if (fs.existsSync('/usr/bin/ffmpeg')) return '/usr/bin/ffmpeg';
  try {
    return createRequire(path.join(ROOT, 'packages/api/package.json'))('@ffmpeg-installer/ffmpeg').path;
  } catch {
    return 'ffmpeg';
  }
}

const startServer = (dataDir) => startBenchServer(dataDir);

async function login(url, admin) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  const body = await res.json();
  if (!body.success) throw new Error(`admin login failed: ${body.error}`);
  return body.data.token;
}

/** Streams one multipart upload; `writeFile(req)` writes the file part's bytes with backpressure. */
function postMultipart(url, token, { title, filename, size, writeFile, method = 'POST' }) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="video"; filename="${filename}"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/admin/upload-video`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('error', reject);
    req.write(head);
    writeFile(req).then(() => req.end(tail), reject);
  });
}

async function writeFiller(req) {
  const chunk = randomBytes(MB);
  for (let sent = 0; sent < FILLER_BYTES; sent += chunk.length) {
    const piece = sent + chunk.length <= FILLER_BYTES ? chunk : chunk.subarray(0, FILLER_BYTES - sent);
    if (!req.write(piece)) await new Promise((r) => req.once('drain', r));
  }
}

function writeFileFrom(file) {
  return (req) =>
    new Promise((resolve, reject) => {
      const rs = fs.createReadStream(file, { highWaterMark: MB });
      rs.on('data', (d) => {
        if (!req.write(d)) {
          rs.pause();
          req.once('drain', () => rs.resume());
        }
      });
      rs.on('end', resolve);
      rs.on('error', reject);
    });
}

async function measure(pid, label, run) {
  const baseline = rssMb(pid);
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 25);
  const started = performance.now();
  const result = await run();
  clearInterval(timer);
  peak = Math.max(peak, rssMb(pid));
  const seconds = (performance.now() - started) / 1000;
  return { label, baseline, peak, growth: peak - baseline, seconds, ...result };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-upload-'));
  const server = await startServer(path.join(work, 'data'));
  const results = [];
  try {
    const token = await login(server.url, server.admin);
    // Warm-up: one tiny upload so lazy code paths are loaded before the baseline.
    const warm = path.join(work, 'warm.mp4');
    execFileSync(ffmpegBinary(), [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=64x48:rate=5',
      '-pix_fmt',
      'yuv420p',
      warm,
    ]);
    await postMultipart(server.url, token, {
      title: 'warm-up',
      filename: 'warm.mp4',
      size: fs.statSync(warm).size,
      writeFile: writeFileFrom(warm),
    });

    results.push(
      await measure(server.child.pid, `filler ${(FILLER_BYTES / MB).toFixed(0)} MB (refused by ffprobe)`, async () => {
        const r = await postMultipart(server.url, token, {
          title: 'filler',
          filename: 'filler.mp4',
          size: FILLER_BYTES,
          writeFile: writeFiller,
        });
        return { bytes: FILLER_BYTES, status: r.status, expected: 400 };
      }),
    );

    const real = path.join(work, 'real.mkv');
    const seconds = Math.max(1, Math.round((REAL_MB * MB) / (320 * 240 * 1.5 * 30)));
    execFileSync(ffmpegBinary(), [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=duration=${seconds}:size=320x240:rate=30`,
      '-c:v',
      'rawvideo',
      '-pix_fmt',
      'yuv420p',
      real,
    ]);
    const realSize = fs.statSync(real).size;
    results.push(
      await measure(server.child.pid, `real video ${(realSize / MB).toFixed(0)} MB (raw YUV in Matroska, stored)`, async () => {
        const r = await postMultipart(server.url, token, {
          title: 'real',
          filename: 'real.mkv',
          size: realSize,
          writeFile: writeFileFrom(real),
        });
        return { bytes: realSize, status: r.status, expected: 201 };
      }),
    );
    // The reference: the same client sending the same filler body to nginx, which writes it to a file (PUT: nginx's DAV module).
    fs.chmodSync(work, 0o755); // nginx's worker (nobody, when started as root) writes under it
    const sink = await startNginxBodySink(path.join(work, 'nginx-sink'));
    try {
      const started = performance.now();
      const sent = await postMultipart(sink.url, token, {
        title: 'filler',
        filename: 'filler.mp4',
        size: FILLER_BYTES,
        writeFile: writeFiller,
        method: 'PUT',
      });
      if (sent.status !== 201 && sent.status !== 204) throw new Error(`nginx body sink answered ${sent.status}`);
      const ref = { bytes: FILLER_BYTES, seconds: (performance.now() - started) / 1000 };
      const filler = results[0];
      const mbps = (r) => r.bytes / MB / r.seconds;
      report({
        figure: `Upload ${(FILLER_BYTES / MB).toFixed(0)} MB multipart over loopback (server RSS growth ${filler.growth.toFixed(0)} MB)`,
        ours: mbps(filler),
        unit: 'MB/s',
        reference: mbps(ref),
        referenceLabel: 'nginx writing the body to a file',
        target: '≥ 0.7×, RSS growth ≤ 64 MB',
        pass: mbps(filler) / mbps(ref) >= 0.7 && filler.growth <= BUDGET_MB,
      });
    } finally {
      await sink.stop();
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    fs.rmSync(work, { recursive: true, force: true });
  }

  let failed = false;
  console.log(`\nUpload memory benchmark (server RSS, budget ${BUDGET_MB} MB growth)`);
  for (const r of results) {
    // A budget miss is a figure (the table says **no**, like any missed target); only an upload that
    // did not do what it should fails the run.
    const done = r.status === r.expected;
    const ok = r.growth <= BUDGET_MB && done;
    failed ||= !done;
    console.log(
      `  ${r.label}: HTTP ${r.status}, ${(r.bytes / MB / r.seconds).toFixed(0)} MB/s, RSS ${r.baseline.toFixed(0)} → peak ${r.peak.toFixed(0)} MB, ` +
        `growth ${r.growth.toFixed(1)} MB = ${((r.growth / BUDGET_MB) * 100).toFixed(0)}% of budget ${ok ? 'OK' : done ? 'over budget' : 'FAIL'}`,
    );
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
