#!/usr/bin/env node
/**
 * The media tier on an object store (issue 20 item 7), each figure beside its reference measured in
 * the same run on the same Ceph RGW (bench/lib/s3Services.mjs: the tests' gateway, or a throwaway
 * one started here), interleaved in a rotating order over `--rounds`:
 *
 *   uploads   the same file (raw YUV in Matroska, probed and thumbnailed by the API) through the
 *             multipart route (POST /api/admin/upload-video: received to scratch, probed,
 *             thumbnailed, stored in 16 MiB parts) and over tus (one PATCH; @tus/s3-store's 8 MiB
 *             parts, then copied to scratch, ingested and stored again), against the AWS SDK's own
 *             lib-storage `Upload` (16 MiB parts, 4 at once: what the API stores with) and
 *             `PutObject` of the same file straight to the gateway;
 *   media     random 1 MiB ranges of one video, 16 connections (wrk), through nginx with the shipped
 *             S3 configuration (deploy/nginx.s3.conf's template, MEDIA_ACCEL=nginx: the API decides,
 *             answers X-Accel-Redirect to a presigned GET, nginx fetches from the gateway) against a
 *             presigned GET of the same object straight from the gateway.
 *
 * The API runs with TRANSCODE_CONCURRENCY=0: no ffmpeg shares the CPU with a measurement. Each
 * row notes how busy the machine's cores were during its runs (what limits it).
 *
 *   node bench/media-s3.mjs [--mb 200] [--rounds 3] [--media-mb 100] [--seconds 5] [--media-rounds 5]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { renderNginxConf, standaloneNginxConf } from '../deploy/render-nginx.mjs';
import { apiCall, freePort, ROOT, startBenchServer } from './lib/benchServer.mjs';
import { machineBusy } from './lib/cpu.mjs';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';
import { getSignedUrl, s3sdk, startServices, Upload } from './lib/s3Services.mjs';
import { startNginx, wrkRanges } from './lib/wrkRanges.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MB = 1024 * 1024;
const UPLOAD_MB = arg('mb', SMOKE ? 8 : QUICK ? 32 : 200);
const ROUNDS = arg('rounds', SMOKE ? 1 : QUICK ? 2 : 3);
const MEDIA_MB = arg('media-mb', SMOKE ? 8 : QUICK ? 20 : 100);
const SECONDS = arg('seconds', SMOKE ? 1 : QUICK ? 2 : 5);
const MEDIA_ROUNDS = arg('media-rounds', SMOKE ? 1 : QUICK ? 3 : 5);
const CONNECTIONS = 16;
const tus = createRequire(path.join(ROOT, 'packages/api/package.json'))('tus-js-client');
const ffmpeg = fs.existsSync('/usr/bin/ffmpeg') ? '/usr/bin/ffmpeg' : 'ffmpeg';
const pct = (x) => `${Math.round(x * 100)} %`;

for (const bin of ['/usr/sbin/nginx', '/usr/bin/wrk']) {
  if (!fs.existsSync(bin)) {
    console.error(`${bin} is missing (Debian: apt-get install -y nginx wrk)`);
    process.exit(1);
  }
}

async function uploadMultipart(url, token, file) {
  const form = new FormData();
  form.append('title', 'bench multipart');
  form.append('accessLevel', 'free');
  form.append('video', await fs.openAsBlob(file), path.basename(file));
  const res = await fetch(`${url}/api/admin/upload-video`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  const body = await res.json();
  if (!body.success) throw new Error(`multipart upload: ${res.status} ${body.error}`);
  return body.data.videoId;
}

function uploadTus(url, token, file) {
  return new Promise((resolve, reject) => {
    new tus.Upload(fs.createReadStream(file), {
      endpoint: `${url}/api/admin/uploads`,
      metadata: { filename: path.basename(file), title: 'bench tus' },
      headers: { Authorization: `Bearer ${token}` },
      chunkSize: Number.POSITIVE_INFINITY,
      retryDelays: null,
      storeFingerprintForResuming: false,
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('Upload-Video-Id')),
      onError: reject,
    }).start();
  });
}

/** Runs `fn` once per round for each of `runs` (rotating order); answers each run's MB/s per round and the machine's busy share. */
async function interleaved(runs, rounds, before) {
  const out = Object.fromEntries(Object.keys(runs).map((k) => [k, { mbps: [], busy: [] }]));
  const names = Object.keys(runs);
  for (let round = 0; round < rounds; round++) {
    const line = [];
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length];
      await before?.();
      const cpu = machineBusy();
      const mbps = await runs[name]();
      out[name].busy.push(cpu.end());
      out[name].mbps.push(mbps);
      line.push(`${name} ${mbps.toFixed(0)}`);
    }
    console.log(`  round ${round + 1}: ${line.join(', ')} (MB/s)`);
  }
  return out;
}

function row({ figure, ours, ref, refLabel, unit = 'MB/s', target = 'report' }) {
  const q = spread(ours.mbps.map((v, k) => v / ref.mbps[k]));
  const o = spread(ours.mbps);
  const r = spread(ref.mbps);
  report({
    figure,
    note: `cores busy ${pct(spread(ours.busy).median)} (ours), ${pct(spread(ref.busy).median)} (reference)`,
    ours: o.median,
    oursRange: o.range,
    unit,
    reference: r.median,
    referenceRange: r.range,
    referenceLabel: refLabel,
    ratio: q.median,
    ratioRange: q.range,
    target,
  });
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-s3-'));
  fs.chmodSync(work, 0o755); // nginx's workers (nobody, when started as root) write their temp files under it
  const services = await startServices();
  const children = [];
  try {
    const server = await startBenchServer(path.join(work, 'data'), {
      ...services.env,
      MEDIA_ACCEL: 'nginx',
      TRUST_PROXY: 'true',
      TRANSCODE_CONCURRENCY: '0',
    });
    children.push(server.child);
    const token = (await apiCall(server.url, 'POST', '/auth/login', server.admin)).token;

    // 1. Uploads: our two routes against the SDK's own calls, same file, same gateway.
    const file = path.join(work, 'upload.mkv');
    const seconds = Math.max(1, Math.round((UPLOAD_MB * MB) / (320 * 240 * 1.5 * 30)));
    execFileSync(ffmpeg, [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=30`],
      ...['-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', file],
    ]);
    const size = fs.statSync(file).size;
    const { client, bucket } = services;
    const timed = async (fn) => {
      const started = performance.now();
      await fn();
      return size / MB / ((performance.now() - started) / 1000);
    };
    await uploadMultipart(server.url, token, file); // warm-up: lazy code paths, the gateway's first parts
    console.log(`uploads of ${(size / MB).toFixed(0)} MB, ${ROUNDS} rounds interleaved, ${os.cpus().length} cores`);
    const uploads = await interleaved(
      {
        multipart: () => timed(() => uploadMultipart(server.url, token, file)),
        tus: () => timed(() => uploadTus(server.url, token, file)),
        'SDK Upload': () =>
          timed(() =>
            new Upload({
              client,
              params: { Bucket: bucket, Key: 'ref/upload.mkv', Body: fs.createReadStream(file), ContentLength: size },
              partSize: 16 * MB,
              queueSize: 4,
            }).done(),
          ),
        'SDK PutObject': () =>
          timed(() =>
            client.send(
              new s3sdk.PutObjectCommand({ Bucket: bucket, Key: 'ref/put.mkv', Body: fs.createReadStream(file), ContentLength: size }),
            ),
          ),
      },
      ROUNDS,
      // Every run starts on an empty bucket and a clean page cache (the gateway keeps objects in memory).
      async () => {
        await services.empty();
        execFileSync('sync');
      },
    );
    const sizeText = `${(size / MB).toFixed(0)} MB`;
    // The reference is the SDK's faster call in each round: the limit of storing this file from Node.
    const put = uploads['SDK PutObject'];
    const up = uploads['SDK Upload'];
    const best = up.mbps.map((v, k) => (v >= put.mbps[k] ? k : -1));
    const sdk = {
      mbps: up.mbps.map((v, k) => Math.max(v, put.mbps[k])),
      busy: best.map((k, i) => (k >= 0 ? up.busy[i] : put.busy[i])),
    };
    console.log(`  SDK: Upload ${spread(up.mbps).median.toFixed(0)} MB/s, PutObject ${spread(put.mbps).median.toFixed(0)} MB/s (medians)`);
    const refLabel = 'the AWS SDK storing the file, the faster of PutObject and lib-storage Upload';
    row({
      figure: `Upload ${sizeText} to the object store, multipart route (received, probed, thumbnailed, stored in 16 MiB parts), ${ROUNDS} rounds`,
      ours: uploads.multipart,
      ref: sdk,
      refLabel,
    });
    row({
      figure: `Upload ${sizeText} to the object store over tus, one PATCH (8 MiB parts, probed through a presigned URL, copied inside the bucket), ${ROUNDS} rounds`,
      ours: uploads.tus,
      ref: sdk,
      refLabel,
    });
    await services.empty();

    // 2. Media: through nginx (API decides, nginx fetches from the store) against the store directly.
    const clip = path.join(work, 'clip.mp4');
    execFileSync(ffmpeg, [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-t', String(Math.max(2, Math.round(MEDIA_MB / 2)))],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', clip],
    ]);
    const videoId = await uploadMultipart(server.url, token, clip);
    // The original: the admins' progressive file (a member's is a rendition, and none before a transcode).
    const stream = new URL((await apiCall(server.url, 'GET', `/videos/${videoId}/stream`, undefined, token)).streamUrl, server.url);

    const nginxPort = await freePort();
    const prefix = path.join(work, 'nginx');
    fs.mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
    const site = renderNginxConf({
      mediaStore: 's3',
      upstreams: [new URL(server.url).host],
      listen: `127.0.0.1:${nginxPort}`,
      serverName: '127.0.0.1',
      cacheDir: path.join(prefix, 'cache'),
      resolver: '127.0.0.1',
    });
    children.push(await startNginx(prefix, standaloneNginxConf(prefix, site), nginxPort));
    const throughNginx = `http://127.0.0.1:${nginxPort}${stream.pathname}${stream.search}`;
    const check = await fetch(throughNginx, { headers: { range: 'bytes=0-9' } });
    await check.arrayBuffer();
    if (check.status !== 206 || check.headers.get('x-media-served-by') !== 'nginx-s3')
      throw new Error(`through nginx answered ${check.status} without X-Media-Served-By: nginx-s3`);
    const key = (await client.send(new s3sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: `videos/${videoId}/video.` }))).Contents?.[0]
      ?.Key;
    if (!key) throw new Error(`the clip's original is not in the bucket under videos/${videoId}/`);
    const clipSize = fs.statSync(clip).size;
    const direct = await getSignedUrl(client, new s3sdk.GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 3600 });
    console.log(`media: ${(clipSize / MB).toFixed(0)} MiB, ${CONNECTIONS} connections, ${SECONDS} s per run, ${MEDIA_ROUNDS} rounds`);
    const wrk = (label, url) => () => wrkRanges({ label, url, size: clipSize, work, connections: CONNECTIONS, seconds: SECONDS });
    const decisions = [];
    const media = await interleaved(
      {
        'through nginx': async () => wrk('through nginx', throughNginx)().mbps,
        'store direct': async () => wrk('store direct', direct)().mbps,
        // The API alone: its decision and X-Accel-Redirect answer, no media byte (what nginx waits for first).
        'API decisions': async () => {
          const r = wrk('API decisions', `${server.url}${stream.pathname}${stream.search}`)();
          decisions.push(r.requests / SECONDS);
          return r.mbps;
        },
      },
      MEDIA_ROUNDS,
    );
    row({
      figure: `Media from the object store through nginx (API decides, X-Accel to a presigned GET), ${CONNECTIONS} connections, 1 MiB ranges, ${MEDIA_ROUNDS} rounds interleaved`,
      ours: media['through nginx'],
      ref: media['store direct'],
      refLabel: 'presigned GET straight from the store',
    });
    const d = spread(decisions);
    report({
      figure: `Media decisions of the API alone (signed URL checked, presigned GET made, X-Accel-Redirect answered; no body), ${CONNECTIONS} connections, ${MEDIA_ROUNDS} rounds interleaved`,
      note: `cores busy ${pct(spread(media['API decisions'].busy).median)}`,
      ours: d.median,
      oursRange: d.range,
      unit: 'req/s',
      target: 'report',
    });
  } finally {
    for (const c of children.reverse()) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        await new Promise((r) => c.once('exit', r));
      }
    }
    await services.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
