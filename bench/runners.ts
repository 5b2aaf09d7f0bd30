/**
 * Transcode runners on the object store (issue 20 item 7): an API process on PostgreSQL and the
 * bench's Ceph RGW (bench/lib/s3Services.mjs) with TRANSCODE_IN_SERVER=false, and token runners
 * (`pnpm cli transcode-runner --server URL`, holding only PATH, HOME and a RUNNER_TOKEN made through
 * the admin API), each with its own home and scratch, doing the work.
 *
 *   overhead   CPU-seconds per second of video of one job done by a runner (the runner process and
 *              the ffmpeg it waited for, from /proc/<pid>/stat: claim, heartbeats, the original
 *              downloaded through its presigned URL, ffmpeg, the ladder uploaded through presigned
 *              PUTs, the runner API's calls), against the same ffmpeg command (transcode/ladder.ts's
 *              ladderArgs) alone on the same presigned original; interleaved, in a rotating order,
 *              `--rounds` times;
 *   runners    the same batch of `--videos` queued videos transcoded by one runner and by two
 *              (each --concurrency 1; the batch is released once they run), wall time from the first
 *              claim to the last job's end (the runners' own lines, timed as they arrive), as videos
 *              per minute; `--batch-rounds` of each, alternating.
 *
 * Sources: synthetic 1280×720 H.264 with temporal noise and a tone (x264 has real work), the
 * ladder 720p/480p/360p + sprites at the default preset (veryfast).
 *
 *   npx tsx bench/runners.ts [--seconds 12] [--rounds 3] [--videos 4] [--batch-seconds 8] [--batch-rounds 2] [--quick]
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mediaBinaries } from '../packages/api/src/media/ffmpeg.js';
import { ladderArgs, planLadder } from '../packages/api/src/transcode/ladder.js';
import { API_CLI_ARGS, apiCall, ROOT, startBenchServer } from './lib/benchServer.mjs';
import { childCpuSeconds, machineBusy, processTreeCpuSeconds, withChildCpu } from './lib/cpu.mjs';
import { ownChild } from './lib/ownChildren.mjs';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';
import { getSignedUrl, s3sdk, startServices } from './lib/s3Services.mjs';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', SMOKE ? 2 : QUICK ? 4 : 12);
const ROUNDS = arg('rounds', SMOKE ? 1 : QUICK ? 2 : 3);
const VIDEOS = arg('videos', SMOKE || QUICK ? 2 : 4);
const BATCH_SECONDS = arg('batch-seconds', SMOKE ? 1 : QUICK ? 3 : 8);
const BATCH_ROUNDS = arg('batch-rounds', SMOKE || QUICK ? 1 : 2);
const PRESET = 'veryfast';
// A smoke run goes through every step with a 360p source (a one-rendition ladder): its figures measure nothing.
const WIDTH = SMOKE ? 640 : 1280;
const HEIGHT = SMOKE ? 360 : 720;
const ffmpeg = mediaBinaries().ffmpeg;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (x: number) => `${Math.round(x * 100)} %`;

/**
 * ffmpeg and the reference run without blocking this process: a blocked event loop keeps the HTTP
 * client's idle keep-alive socket past the server's keep-alive timeout, and the next upload then
 * writes into a socket the server has closed (seen: `fetch failed`, EPIPE, on the batch's first upload).
 */
const execFileAsync = promisify(execFile);

async function makeSource(file: string, seconds: number): Promise<void> {
  await execFileAsync(ffmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i'],
    `testsrc2=duration=${seconds}:size=${WIDTH}x${HEIGHT}:rate=30,noise=alls=12:allf=t`,
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
  ]);
}

interface Runner {
  child: ChildProcess;
  /** Each line the runner wrote, with the time (ms since the epoch) it arrived. */
  lines: { at: number; line: string }[];
  exited: Promise<unknown>;
}

/** A token runner with nothing of the site's in its environment, its home and scratch in `home`. */
function startRunner(server: string, token: string, home: string): Promise<Runner> {
  fs.mkdirSync(home, { recursive: true });
  const child = ownChild(
    spawn(
      process.execPath,
      [...API_CLI_ARGS, 'transcode-runner', '--server', server, '--concurrency', '1', '--scratch', path.join(home, 'scratch')],
      { cwd: ROOT, env: { PATH: process.env.PATH as string, HOME: home, RUNNER_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  const lines: Runner['lines'] = [];
  let rest = '';
  const take = (d: Buffer) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) lines.push({ at: Date.now(), line });
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (lines.some((l) => /^Transcode runner \S+ running/.test(l.line))) {
        clearInterval(timer);
        resolve({ child, lines, exited });
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`runner exited with ${code}:\n${lines.map((l) => l.line).join('\n')}${rest}`));
    });
  });
}

async function stopRunner(r: Runner): Promise<void> {
  if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  await r.exited;
}

/** When the runner's lines matching `pattern` arrived (ms since the epoch). */
const logTimes = (r: Runner, pattern: RegExp) => r.lines.filter((l) => pattern.test(l.line)).map((l) => l.at);

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-runners-'));
  const services = await startServices({ database: true });
  const runners: Runner[] = [];
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    const shared = { ...services.env, DATA_KEY_SECRET: randomBytes(32).toString('hex'), TRANSCODE_PRESET: PRESET };
    server = await startBenchServer(path.join(work, 'api'), { ...shared, TRANSCODE_IN_SERVER: 'false' });
    const url = server.url;
    const token = (await apiCall(url, 'POST', '/auth/login', server.admin)).token;
    // One token for every runner, made as an admin makes one on the admin dashboard.
    const runnerToken = (await apiCall(url, 'POST', '/admin/runners/tokens', { name: 'bench' }, token)).token as string;
    let runnerN = 0;
    const newRunner = () => startRunner(url, runnerToken, path.join(work, `runner-${++runnerN}`));
    const upload = async (file: string, title: string): Promise<string> => {
      const form = new FormData();
      form.append('title', title);
      form.append('accessLevel', 'free');
      form.append('video', await fs.openAsBlob(file), path.basename(file));
      const res = await fetch(`${url}/api/admin/upload-video`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await res.json();
      if (!body.success) throw new Error(`upload: ${res.status} ${body.error}`);
      return body.data.videoId;
    };
    const completed = async (ids: string[]) => {
      for (const id of ids) {
        for (;;) {
          const t = (await apiCall(url, 'GET', `/admin/videos/${id}`, undefined, token)).transcode;
          if (t.status === 'completed') break;
          if (t.status === 'failed') throw new Error(`transcode of ${id} failed: ${t.error}`);
          await sleep(200);
        }
      }
    };

    // 1. Overhead: one job by a runner against the same ffmpeg command alone.
    const source = path.join(work, 'source.mp4');
    await makeSource(source, SECONDS);
    const runner = await newRunner();
    runners.push(runner);
    // The reference's original, transcoded once as the runner's warm-up (its first job loads lazy code).
    const refId = await upload(source, 'reference source');
    await completed([refId]);
    const key = (await services.client.send(new s3sdk.ListObjectsV2Command({ Bucket: services.bucket, Prefix: `videos/${refId}/video.` })))
      .Contents?.[0]?.Key;
    if (!key) throw new Error('the reference source is not in the bucket');
    const keyFile = path.join(work, 'key.bin');
    fs.writeFileSync(keyFile, randomBytes(16));
    fs.writeFileSync(path.join(work, 'key.info'), `key\n${keyFile}\n${randomBytes(16).toString('hex')}\n`);
    const renditions = planLadder({ width: WIDTH, height: HEIGHT });
    const cpu: Record<'runner' | 'ffmpeg', number[]> = { runner: [], ffmpeg: [] };
    const runs = {
      runner: async () => {
        const before = processTreeCpuSeconds(runner.child.pid as number);
        const id = await upload(source, 'overhead');
        await completed([id]);
        return processTreeCpuSeconds(runner.child.pid as number) - before;
      },
      ffmpeg: async () => {
        const outDir = path.join(work, 'ladder');
        fs.rmSync(outDir, { recursive: true, force: true });
        for (const d of ['sprites', ...renditions.map((r) => r.name)]) fs.mkdirSync(path.join(outDir, d), { recursive: true });
        // The same original the runner reads: a presigned GET of the object, valid long enough.
        const input = await getSignedUrl(services.client, new s3sdk.GetObjectCommand({ Bucket: services.bucket, Key: key }), {
          expiresIn: 3600,
        });
        const args = ladderArgs({
          input,
          outDir,
          keyInfoFile: path.join(work, 'key.info'),
          renditions,
          hasAudio: true,
          durationSeconds: SECONDS,
          preset: PRESET,
        });
        const [cmd, wrapped] = withChildCpu(ffmpeg, args);
        const r = await execFileAsync(cmd, wrapped, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).catch((err) => {
          throw new Error(`ffmpeg alone failed: ${err.stderr ?? err}`);
        });
        return childCpuSeconds(r.stdout.trim().split('\n').at(-1) as string);
      },
    };
    console.log(
      `transcode overhead: ${SECONDS} s of ${WIDTH}×${HEIGHT}, ladder ${renditions.map((r) => r.name).join('/')} + sprites, preset ${PRESET}, ${ROUNDS} rounds, ${os.cpus().length} cores`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? (['ffmpeg', 'runner'] as const) : (['runner', 'ffmpeg'] as const);
      for (const name of order) cpu[name].push((await runs[name]()) / SECONDS);
      console.log(
        `  round ${round + 1}: runner ${cpu.runner.at(-1)?.toFixed(2)}, ffmpeg alone ${cpu.ffmpeg.at(-1)?.toFixed(2)} CPU-s per video-s`,
      );
    }
    await stopRunner(runner);
    const o = spread(cpu.runner);
    const f = spread(cpu.ffmpeg);
    const q = spread(cpu.runner.map((v, k) => v / (cpu.ffmpeg[k] as number)));
    report({
      figure: `Transcode CPU per second of video, one job by pnpm cli transcode-runner (${WIDTH}×${HEIGHT} → ${renditions.map((r) => r.name).join('/')} + sprites, original and ladder in the object store), ${ROUNDS} rounds`,
      ours: o.median,
      oursRange: o.range,
      unit: 'CPU-s/video-s',
      reference: f.median,
      referenceRange: f.range,
      referenceLabel: 'the same ffmpeg command alone on the same presigned original',
      ratio: q.median,
      ratioRange: q.range,
      target: 'report',
    });

    // 2. One runner against two, the same batch of queued videos.
    const batchSource = path.join(work, 'batch.mp4');
    await makeSource(batchSource, BATCH_SECONDS);
    const perMinute: Record<1 | 2, number[]> = { 1: [], 2: [] };
    const busy: Record<1 | 2, number[]> = { 1: [], 2: [] };
    const order: (1 | 2)[] = [];
    for (let round = 0; round < BATCH_ROUNDS; round++) order.push(...(round % 2 ? ([2, 1] as const) : ([1, 2] as const)));
    console.log(`runners: batches of ${VIDEOS} × ${BATCH_SECONDS} s videos, ${BATCH_ROUNDS} rounds of one runner and of two`);
    for (const n of order) {
      const ids: string[] = [];
      for (let i = 0; i < VIDEOS; i++) ids.push(await upload(batchSource, `batch ${i + 1}`));
      // The batch is held (a lease no runner may take) while the runners start, then released at
      // once: no runner's start-up (Node) shares the CPU with another's first transcode.
      for (;;) {
        const held = await services.query(
          `UPDATE transcode_jobs SET state = 'running', worker = 'bench-hold', lease_expires_at = '9999-12-31T00:00:00.000Z'
           WHERE video_id = ANY($1) AND state = 'queued' RETURNING video_id`,
          [ids],
        );
        const holding = await services.query(`SELECT count(*)::int AS n FROM transcode_jobs WHERE worker = 'bench-hold'`);
        if (holding[0].n === VIDEOS) break;
        if (held.length === 0) await sleep(100); // the queue subscriber has not queued them all yet
      }
      const started = await Promise.all(Array.from({ length: n }, newRunner));
      runners.push(...started);
      await sleep(1000);
      await services.query(
        `UPDATE transcode_jobs SET state = 'queued', worker = NULL, lease_expires_at = NULL WHERE worker = 'bench-hold'`,
      );
      const load = machineBusy();
      await completed(ids);
      const share = load.end();
      await Promise.all(started.map(stopRunner));
      const claims = started.flatMap((r) => logTimes(r, /^claimed /));
      const ends = started.flatMap((r) => logTimes(r, /^transcode of \S+ (completed|failed)/));
      if (claims.length < VIDEOS || ends.length < VIDEOS) throw new Error(`runner logs: ${claims.length} claims, ${ends.length} ends`);
      const wall = (Math.max(...ends) - Math.min(...claims)) / 1000;
      perMinute[n].push((VIDEOS / wall) * 60);
      busy[n].push(share);
      console.log(
        `  ${n} runner${n > 1 ? 's' : ''}: ${wall.toFixed(1)} s, ${perMinute[n].at(-1)?.toFixed(1)} videos/min, cores busy ${pct(share)}`,
      );
      await services.empty('videos/');
    }
    const two = spread(perMinute[2]);
    const one = spread(perMinute[1]);
    // Round k ran one runner and two moments apart: the ratio is the median of those pairs'.
    const paired = spread(perMinute[2].map((v, k) => v / (perMinute[1][k] as number)));
    report({
      figure: `Transcode batch of ${VIDEOS} queued ${BATCH_SECONDS} s ${HEIGHT}p videos, two runners (--concurrency 1 each), ${BATCH_ROUNDS} rounds`,
      note: `cores busy ${pct(spread(busy[2]).median)} (two), ${pct(spread(busy[1]).median)} (one)`,
      ours: two.median,
      oursRange: BATCH_ROUNDS > 1 ? two.range : undefined,
      unit: 'videos/min',
      reference: one.median,
      referenceRange: BATCH_ROUNDS > 1 ? one.range : undefined,
      referenceLabel: 'one runner',
      ratio: paired.median,
      ratioRange: BATCH_ROUNDS > 1 ? paired.range : undefined,
      target: 'report',
    });
  } finally {
    for (const r of runners) await stopRunner(r).catch(() => {});
    if (server) {
      server.child.kill('SIGTERM');
      await new Promise((r) => server?.child.once('exit', r));
    }
    await services.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
