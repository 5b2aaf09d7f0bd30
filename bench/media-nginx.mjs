#!/usr/bin/env node
/**
 * Media throughput, three ways side by side in one run on this machine: wrk on loopback,
 * 16 connections, each request a random 1 MiB range of one ~100 MB video.
 *
 *   nginx direct   nginx serving the file from a plain location (the physical reference);
 *   through nginx  the signed URL through nginx (deploy/nginx.conf, MEDIA_ACCEL=nginx): the API
 *                  checks the signature and names the file, nginx sends the bytes and reuses the
 *                  decision for the next ranges of the same URL for up to 15 s;
 *   Node direct    the signed URL straight to the API (MEDIA_ACCEL unset: Node sends the bytes).
 *
 * nginx direct is a limit: through nginx sends the same file from a location with the same
 * settings, after a decision. The measuring starts once the upload's transcode (the server's
 * worker, ffmpeg) is over, so no run shares the CPU with it; the three run interleaved, in a
 * rotating order, `--rounds` times (the machine is shared and noisy: a ratio only means something
 * between runs made moments apart). Prints each round's MB/s and ratio to nginx direct, then each
 * figure's median with its min–max (target: through nginx ≥ 0.9×). Exits 1 when a run has non-2xx
 * answers or wrk/nginx are missing.
 *
 *   node bench/media-nginx.mjs [--seconds 5] [--rounds 7] [--connections 16] [--mb 100]
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderNginxConf, standaloneNginxConf } from '../deploy/render-nginx.mjs';
import { freePort } from '../scripts/freePort.mjs';
import { API_MAIN_ARGS, apiCall, productionSiteConfig } from './lib/benchServer.mjs';
import { ownChild } from './lib/ownChildren.mjs';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';
import { listening, wrkRanges } from './lib/wrkRanges.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', SMOKE ? 1 : QUICK ? 2 : 5);
const ROUNDS = arg('rounds', SMOKE ? 1 : QUICK ? 3 : 7);
const CONNECTIONS = arg('connections', 16);
const TARGET_MB = arg('mb', SMOKE ? 8 : QUICK ? 20 : 100);
const MiB = 1024 * 1024;

for (const bin of ['/usr/sbin/nginx', '/usr/bin/wrk']) {
  if (!fs.existsSync(bin)) {
    console.error(`${bin} is missing (Debian: apt-get install -y nginx wrk)`);
    process.exit(1);
  }
}

const children = [];
function start(cmd, args, env, ready) {
  const child = ownChild(spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(async () => {
      if (await ready(out)) {
        clearInterval(timer);
        resolve(child);
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`${cmd} exited with ${code}: ${out}`));
    });
  });
}

/** wrk's random 1 MiB ranges of a `size`-byte file at `url` (bench/lib/wrkRanges.mjs); answers MB/s. */
const wrk = (label, url, size, work) => wrkRanges({ label, url, size, work, connections: CONNECTIONS, seconds: SECONDS });

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-'));
  fs.chmodSync(work, 0o755); // nginx's workers (www-data when started as root) read DATA_DIR/media
  const dataDir = path.join(work, 'data');
  fs.mkdirSync(path.join(work, 'tmp'));
  try {
    // A ~100 MB H.264 file (lossless, so large quickly).
    const clip = path.join(work, 'clip.mp4');
    const seconds = Math.max(2, Math.round(TARGET_MB / 2));
    execFileSync('ffmpeg', [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-t', String(seconds)],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', clip],
    ]);

    const [nodePort, accelPort, sitePort, directPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const common = {
      NODE_ENV: 'production',
      // The bench sends no mail to anyone: the outbox, said out loud (production requires it or SMTP_URL).
      MAIL_TRANSPORT: 'outbox',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      TOKEN_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'bench-admin@example.test',
      ADMIN_PASSWORD: 'bench-password-123',
      TRUST_PROXY: 'true',
      // Production requires the second-factor key; the bench admin has not enrolled one.
      MFA_KEY_SECRET: randomBytes(32).toString('hex'),
      DATA_KEY_SECRET: randomBytes(32).toString('hex'),
      REQUIRE_ADMIN_2FA: 'false',
      // Production requires it: the site's address is nginx's.
      PUBLIC_URL: `http://127.0.0.1:${sitePort}`,
      // Production refuses the example config's test-vector address.
      SITE_CONFIG: await productionSiteConfig(dataDir),
    };
    const main = API_MAIN_ARGS;
    const ready = (out) => out.includes('Site running at');
    await start(process.execPath, main, { ...common, PORT: String(nodePort) }, ready);
    const nodeUrl = `http://127.0.0.1:${nodePort}`;

    // Upload the clip, publish it to a subscriber and sign a stream URL (through the first process).
    const admin = (await apiCall(nodeUrl, 'POST', '/auth/login', { email: common.ADMIN_EMAIL, password: common.ADMIN_PASSWORD })).token;
    const form = new FormData();
    form.append('title', 'Bench clip');
    form.append('accessLevel', 'free');
    form.append('video', await fs.openAsBlob(clip, { type: 'video/mp4' }), 'clip.mp4');
    const up = await fetch(`${nodeUrl}/api/admin/upload-video`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${admin}` },
    });
    const upBody = await up.json();
    if (!upBody.success) throw new Error(`upload failed: ${upBody.error}`);
    const videoId = upBody.data.videoId;
    // The worker transcodes the upload (ffmpeg, both cores): measure once it is done, not beside it.
    for (;;) {
      const v = await apiCall(nodeUrl, 'GET', `/admin/videos/${videoId}`, undefined, admin);
      if (v.transcode.status === 'completed' || v.transcode.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // The original, as an admin's stream names it (a member's is a rendition within their cap).
    const stream = new URL((await apiCall(nodeUrl, 'GET', `/videos/${videoId}/stream`, undefined, admin)).streamUrl, nodeUrl);
    const signedPath = `${stream.pathname}${stream.search}`;
    const size = fs.statSync(clip).size;

    // The second process on the same data, with MEDIA_ACCEL=nginx, behind nginx.
    await start(process.execPath, main, { ...common, PORT: String(accelPort), MEDIA_ACCEL: 'nginx' }, ready);
    const mediaRoot = path.join(dataDir, 'media');
    const site = renderNginxConf({
      upstreams: [`127.0.0.1:${accelPort}`],
      listen: `127.0.0.1:${sitePort}`,
      serverName: '127.0.0.1',
      mediaRoot,
      cacheDir: path.join(work, 'grants'),
    });
    const direct = `server {
    listen 127.0.0.1:${directPort};
    location /media/ { alias ${mediaRoot}/; sendfile on; tcp_nopush on; sendfile_max_chunk 2m; }
}`;
    fs.writeFileSync(path.join(work, 'nginx.conf'), standaloneNginxConf(work, `${site}\n${direct}`));
    await start('/usr/sbin/nginx', ['-p', work, '-c', path.join(work, 'nginx.conf'), '-e', path.join(work, 'error.log')], {}, () =>
      listening(directPort),
    );

    const check = await fetch(`http://127.0.0.1:${sitePort}${signedPath}`, { headers: { range: 'bytes=0-9' } });
    if (check.status !== 206 || check.headers.get('x-media-served-by') !== 'nginx')
      throw new Error(`through nginx answered ${check.status} without nginx's header`);
    await check.arrayBuffer();

    const key = `videos/${videoId}/${fs.readdirSync(path.join(mediaRoot, 'videos', videoId)).find((f) => f.startsWith('video.'))}`;
    console.log(
      `file ${(size / MiB).toFixed(0)} MiB, ${CONNECTIONS} connections, random 1 MiB ranges, ${SECONDS} s per run, ${ROUNDS} rounds, ${os.cpus().length} cores`,
    );
    const targets = [
      ['nginx direct', `http://127.0.0.1:${directPort}/media/${key}`, 'reference'],
      ['through nginx (API decides)', `http://127.0.0.1:${sitePort}${signedPath}`, '≥ 0.90×'],
      ['Node direct (media route)', `http://127.0.0.1:${nodePort}${signedPath}`, 'report'],
    ];
    const ratios = targets.map(() => []);
    const speeds = targets.map(() => []);
    console.log(`${'figure'.padEnd(30)} ${'round'.padStart(5)} ${'MB/s'.padStart(8)} ${'ratio'.padStart(7)}`);
    for (let round = 1; round <= ROUNDS; round++) {
      // A rotating order: no figure always runs first (or always right after another).
      const order = targets.map((_, k) => (k + round - 1) % targets.length);
      const results = [];
      for (const i of order) results[i] = wrk(targets[i][0], targets[i][1], size, work);
      for (const i of order) {
        const r = results[i];
        ratios[i].push(r.mbps / results[0].mbps);
        speeds[i].push(r.mbps);
        console.log(
          `${r.label.padEnd(30)} ${String(round).padStart(5)} ${r.mbps.toFixed(0).padStart(8)} ${(r.mbps / results[0].mbps).toFixed(2).padStart(6)}×`,
        );
      }
    }
    const median = (xs) => spread(xs).median;
    console.log(`\n${'figure'.padEnd(30)} ${'MB/s: median (min–max)'.padStart(24)} ${'ratio: median (min–max)'.padStart(24)}  target`);
    targets.forEach(([label, , target], i) => {
      const s = spread(speeds[i]);
      const q = spread(ratios[i]);
      console.log(
        `${label.padEnd(30)} ${`${s.median.toFixed(0)} (${s.range[0].toFixed(0)}–${s.range[1].toFixed(0)})`.padStart(24)} ${`${q.median.toFixed(2)}× (${q.range[0].toFixed(2)}–${q.range[1].toFixed(2)})`.padStart(24)}  ${target}`,
      );
    });
    const rows = [
      [1, 'Media through nginx (API decides, nginx sends)', '≥ 0.9×', (r) => r >= 0.9],
      [2, 'Media directly from Node (embedded default)', 'report', () => null],
    ];
    for (const [i, figure, target, holds] of rows) {
      const q = spread(ratios[i]);
      report({
        figure: `${figure}, ${CONNECTIONS} connections, 1 MiB ranges, ${ROUNDS} rounds interleaved`,
        ratio: q.median,
        ratioRange: q.range,
        ours: median(speeds[i]),
        oursRange: spread(speeds[i]).range,
        unit: 'MB/s',
        reference: median(speeds[0]),
        referenceRange: spread(speeds[0]).range,
        referenceLabel: 'nginx serving the file',
        target,
        pass: holds(median(ratios[i])),
      });
    }
  } catch (err) {
    const log = path.join(work, 'error.log');
    if (fs.existsSync(log)) console.error(`nginx error.log:\n${fs.readFileSync(log, 'utf8').split('\n').slice(-10).join('\n')}`);
    const access = path.join(work, 'access.log');
    if (fs.existsSync(access)) {
      const lines = fs.readFileSync(access, 'utf8').split('\n');
      console.error(
        `access.log (${lines.length} lines), not 206:\n${lines
          .filter((l) => l && !l.includes('" 206 '))
          .slice(-8)
          .join('\n')}`,
      );
    }
    throw err;
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  process.exit(1);
});
