/**
 * Live shows (issue 43 item 7), one API process (the real entry point, SQLite, its embedded RTMP
 * ingest) and a push of what an encoder sends, with a clock burned into the picture:
 *
 *   glass-to-glass  the push is 640×360 frames made here, each carrying Date.now() at the moment it is
 *                   handed to the encoder as 48 black or white blocks (8×6, 80×60 px each: milliseconds
 *                   since the epoch, most significant bit first), piped into ffmpeg (x264 zerolatency,
 *                   a keyframe every 2 s, and an AAC tone) and pushed over RTMP. A member fetches the
 *                   live playlist as a player does (the signed URL from the stream route, the 360p
 *                   rendition, polled every 200 ms), and when a new segment is listed fetches its key
 *                   and the segment, decrypts it (AES-128, the sequence as IV), and at that moment
 *                   notes the time; ffmpeg then decodes its frames (scaled to 8×6, one byte per block)
 *                   and the clock is read back. The latency is (that moment − the clock of the
 *                   segment's first frame): the oldest frame of the newest segment, the frame a player
 *                   starting at the live edge shows then. Median and p95 over the segments.
 *   viewers         N simulated viewers, each its own member with its own signed playlist, polling its
 *                   360p playlist every 2 s and fetching each new segment and (once per key window)
 *                   its key, as a player does, against the ONE API process that also ingests; N doubles
 *                   until a viewer's fetch misses its 2 s (a poll's playlist + new segments + key not
 *                   all received within the segment length). Reported: the most viewers served with no
 *                   late fetch, the API process's CPU (utime + stime from /proc) and the machine's.
 *   CPU per second  the ingest ladder's ffmpeg (the API's child: decode, 360p and 240p x264 at the
 *                   default TRANSCODE_PRESET, AAC per rendition) CPU-seconds from /proc over a window
 *                   of the push, per second of live video (ingested in real time).
 *
 * The bench's own client (the push, the viewers, the decodes) runs on the same cores.
 *
 *   node --import tsx bench/live.ts [--quick | --smoke]
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createDecipheriv, randomBytes, randomFillSync, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseEnv } from '../packages/api/src/config/env.js';
import { loadSiteConfig } from '../packages/api/src/config/site.js';
import { signAccessToken } from '../packages/api/src/http/auth.js';
import type { AppContext } from '../packages/api/src/kernel/context.js';
import { mediaBinaries } from '../packages/api/src/media/index.js';
import { modules } from '../packages/api/src/wiring/modules.js';
import { startServer } from '../packages/api/src/wiring/server.js';
import { apiCall, BENCH_ADMIN, freePort, startBenchServer } from './lib/benchServer.mjs';
import { machineBusy } from './lib/cpu.mjs';
import { ownChild } from './lib/ownChildren.mjs';
import { QUICK, report, SMOKE } from './lib/report.mjs';

const fromApi = createRequire(new URL('../packages/api/package.json', import.meta.url));
const { default: pino } = (await import(fromApi.resolve('pino'))) as typeof import('pino');
const run = promisify(execFile);

const SEGMENT_MS = 2000;
/** Segments read back for the latency (≥ 10 for a figure; the smoke run only goes through the steps). */
const LATENCY_SAMPLES = SMOKE ? 2 : QUICK ? 10 : 15;
/** Viewer levels, doubling; the run stops at the first level with a late fetch. */
const LEVELS = SMOKE ? [4] : QUICK ? [25, 50, 100, 200, 400] : [25, 50, 100, 200, 400, 800];
const LEVEL_MS = SMOKE ? 4000 : QUICK ? 10_000 : 16_000;
/** The window over which the ladder's CPU is read. */
const CPU_WINDOW_MS = SMOKE ? 2000 : QUICK ? 10_000 : 20_000;
const W = 640;
const H = 360;
const FPS = 25;
const COLS = 8;
const ROWS = 6;
const SECRETS = {
  TOKEN_SECRET: randomBytes(32).toString('hex'),
  DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
  MFA_KEY_SECRET: 'bench-mfa-key-bench-mfa-key-bench-mfa-key-0123',
};

const pct = (fraction: number) => `${(fraction * 100).toFixed(0)} %`;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] as number;
};

/**
 * One frame (gray, W×H): its top half carries `ms` as COLS×ROWS blocks, most significant bit first
 * (white = 1); its bottom half is fresh noise, so that the ladder spends its whole bitrate (a still
 * picture would make segments of a few kB, and the viewers' figure would measure no bytes).
 */
function clockFrame(ms: number): Buffer {
  const frame = Buffer.alloc(W * H);
  randomFillSync(frame, (W * H) / 2);
  const bw = W / COLS;
  const bh = H / 2 / ROWS;
  for (let bit = 0; bit < COLS * ROWS; bit++) {
    const on = Math.floor(ms / 2 ** (COLS * ROWS - 1 - bit)) % 2 === 1;
    if (!on) continue;
    const x0 = (bit % COLS) * bw;
    const y0 = Math.floor(bit / COLS) * bh;
    for (let y = y0; y < y0 + bh; y++) frame.fill(255, y * W + x0, y * W + x0 + bw);
  }
  return frame;
}

/** The clock of each frame of a decoded block grid (COLS×2·ROWS bytes per frame, the clock in the top half). */
function readClocks(grid: Buffer): number[] {
  const out: number[] = [];
  const n = COLS * ROWS;
  for (let f = 0; f + 2 * n <= grid.length; f += 2 * n) {
    let ms = 0;
    for (let bit = 0; bit < n; bit++) ms = ms * 2 + ((grid[f + bit] as number) >= 128 ? 1 : 0);
    out.push(ms);
  }
  return out;
}

/**
 * The encoder: frames made here at FPS, each stamped with the wall clock as it is written, piped to
 * ffmpeg (rawvideo in, x264 + AAC in FLV over RTMP out), as OBS sends.
 */
function startPush(url: string): { child: ChildProcess; stop: () => void } {
  const child = ownChild(
    spawn(
      mediaBinaries().ffmpeg,
      [
        ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
        ...['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', `${W}x${H}`, '-framerate', String(FPS), '-i', 'pipe:0'],
        ...['-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100'],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', String(FPS * 2), '-pix_fmt', 'yuv420p'],
        // CBR as OBS is told to send (docs/live.md), at a 360p rate.
        ...['-b:v', '1500k', '-maxrate', '1500k', '-bufsize', '1500k'],
        ...['-c:a', 'aac', '-b:a', '64k', '-f', 'flv', url],
      ],
      { stdio: ['pipe', 'ignore', 'inherit'] },
    ),
  );
  child.stdin?.on('error', () => {}); // the push ends with the bench: a write after it closed is no error of ours
  const started = performance.now();
  let n = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    // Every frame due by now, each stamped as it is handed over (a late timer writes its frames at once).
    while (performance.now() >= started + (n * 1000) / FPS) {
      child.stdin?.write(clockFrame(Date.now()));
      n++;
    }
    setTimeout(tick, Math.max(1, started + (n * 1000) / FPS - performance.now()));
  };
  tick();
  return {
    child,
    stop() {
      stopped = true;
      child.stdin?.end();
    },
  };
}

interface Playlist {
  sequence: number;
  /** Segment URLs with their sequence numbers and key URLs. */
  segments: { seq: number; url: string; key: string }[];
}

function parsePlaylist(text: string, base: URL): Playlist {
  const sequence = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1] ?? 0);
  const segments: Playlist['segments'] = [];
  let key = '';
  for (const line of text.split('\n')) {
    const k = /^#EXT-X-KEY:.*URI="([^"]+)"/.exec(line);
    if (k) key = new URL(k[1] as string, base).href;
    else if (line && !line.startsWith('#')) segments.push({ seq: sequence + segments.length, url: new URL(line, base).href, key });
  }
  return { sequence, segments };
}

async function bytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url.split('?')[0]}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** The 360p media playlist URL a member's player reaches from its signed master. */
async function mediaPlaylistUrl(base: string, showId: string, token: string): Promise<URL> {
  // Live from the first packet; the URL comes once every rendition has its first playlist ("The show is starting" until then).
  let hlsUrl: string | null = null;
  for (const deadline = Date.now() + 30_000; !hlsUrl; await sleep(200)) {
    if (Date.now() > deadline) throw new Error('the show gave no playlist within 30 s of going live');
    ({ hlsUrl } = (await apiCall(base, 'GET', `/live/shows/${showId}/stream`, undefined, token)) as { hlsUrl: string | null });
  }
  const masterUrl = new URL(hlsUrl, base);
  const master = (await bytes(masterUrl.href)).toString('utf8');
  const line = master.split('\n').find((l) => l.startsWith('360p/'));
  if (!line) throw new Error(`no 360p rendition in the master playlist:\n${master}`);
  return new URL(line, masterUrl);
}

/** CPU-seconds (utime + stime) of one process, from /proc/<pid>/stat (100 ticks a second on Linux). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** The ingest ladder: the API process's ffmpeg child. */
function ladderPid(apiPid: number): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'ffmpeg' && ppid === apiPid) return Number(entry);
    } catch {
      // a process that ended while we looked
    }
  }
  return undefined;
}

/**
 * A user as identity events (no argon2: the bench is about the stream), a member with an active
 * annual plan (the billing row the entitlement reads, as the streaming suites set it), and a token
 * signed as the API signs one.
 */
async function seedUser(ctx: AppContext, role: 'admin' | 'member'): Promise<string> {
  const id = randomUUID();
  const at = ctx.clock.now().toISOString();
  await ctx.store.append(
    `user-${id}`,
    [
      {
        type: 'UserRegistered',
        data: {
          userId: id,
          email: `${id}@example.test`,
          firstName: 'Bench',
          lastName: 'Viewer',
          dateOfBirth: '1990-01-01',
          passwordHash: 'not-a-real-hash',
          role,
          registeredAt: at,
        },
      },
      { type: 'UserApproved', data: { userId: id, approvedBy: 'bench', approvedAt: at } },
    ],
    { expectedVersion: 'no_stream', metadata: { actorId: null, at } },
  );
  if (role === 'member') {
    await ctx.db.run(`UPDATE users SET membership_status = 'active', subscription_status = 'active' WHERE id = ?`, [id]);
    await ctx.db.run(
      `INSERT INTO billing_subscriptions (user_id, subscription_id, plan_type, status, cancel_at_period_end, current_period_start,
         current_period_end, grace_until, last_payment_id, amount_sats, updated_at)
       VALUES (?, ?, 'annual', 'active', 0, ?, ?, NULL, 'bench-payment', 0, ?)`,
      [id, `sub-${id}`, at, new Date(Date.parse(at) + 30 * 86_400_000).toISOString(), at],
    );
  }
  return signAccessToken(ctx, { id, role });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-live-'));
const dataDir = path.join(work, 'data');
let push: ReturnType<typeof startPush> | undefined;
let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
try {
  // The admin and the viewers (annual plan: every rendition), seeded before the server starts.
  const viewersNeeded = Math.max(...LEVELS) + 1;
  const seedEnv = parseEnv({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    ...SECRETS,
    TRANSCODE_CONCURRENCY: '0',
    LIVE_RTMP_PORT: '0',
  } as NodeJS.ProcessEnv);
  const seeder = await startServer(seedEnv, loadSiteConfig().config, modules, { logger: pino({ level: 'silent' }) });
  let adminToken: string;
  const memberTokens: string[] = [];
  try {
    adminToken = await seedUser(seeder.ctx, 'admin');
    for (let i = 0; i < viewersNeeded; i++) memberTokens.push(await seedUser(seeder.ctx, 'member'));
  } finally {
    await seeder.stop();
  }

  const rtmpPort = await freePort();
  server = await startBenchServer(dataDir, {
    ...SECRETS,
    TRANSCODE_CONCURRENCY: '0',
    LIVE_RTMP_PORT: String(rtmpPort),
    LIVE_RTMP_HOST: '127.0.0.1',
  });
  const base = server.url;
  const apiPid = server.child.pid as number;
  const { show } = (await apiCall(
    base,
    'POST',
    '/admin/live/shows',
    { title: 'Bench show', accessLevel: 'premium', startsAt: new Date(Date.now() + 3_600_000).toISOString(), saveReplay: false },
    adminToken,
  )) as { show: { id: string; streamKey: string } };
  const pushedAt = Date.now();
  push = startPush(`rtmp://127.0.0.1:${rtmpPort}/live/${show.streamKey}`);
  const member = memberTokens[0] as string;
  for (let live = false; !live; await sleep(200)) {
    if (Date.now() - pushedAt > 30_000) throw new Error('the show did not go live within 30 s of the push');
    const { shows } = (await apiCall(base, 'GET', '/live/shows', undefined, member)) as { shows: { id: string; status: string }[] };
    live = shows.find((s) => s.id === show.id)?.status === 'live';
  }

  // The ladder's CPU, measured while the latency is (one member polling; the process otherwise idle).
  const ladder = await (async () => {
    for (let t = 0; t < 50; t++, await sleep(100)) {
      const pid = ladderPid(apiPid);
      if (pid) return pid;
    }
    throw new Error('no ffmpeg child of the API process: the ladder did not start');
  })();
  let cpuWindow: { cpu: number; seconds: number } | undefined;
  const cpuRead = (async () => {
    await sleep(SEGMENT_MS); // past the ladder's start-up (probe, first keyframe)
    const c0 = cpuSeconds(ladder);
    const t0 = performance.now();
    await sleep(CPU_WINDOW_MS);
    cpuWindow = { cpu: cpuSeconds(ladder) - c0, seconds: (performance.now() - t0) / 1000 };
  })();

  // Glass to glass: every new segment of the 360p playlist, fetched as soon as it is listed.
  const mediaUrl = await mediaPlaylistUrl(base, show.id, member);
  const latencies: number[] = [];
  const edgeLatencies: number[] = [];
  let misreads = 0;
  let seen = -1;
  const keys = new Map<string, Buffer>();
  const deadline = Date.now() + 60_000 + LATENCY_SAMPLES * SEGMENT_MS * 2;
  while (latencies.length < LATENCY_SAMPLES) {
    if (Date.now() > deadline) throw new Error(`only ${latencies.length} segments read back in time`);
    const res = await fetch(mediaUrl);
    // 404 until the ladder's first segment is stored.
    if (res.status !== 200 && res.status !== 404) throw new Error(`the live playlist answered ${res.status}`);
    const list = parsePlaylist(res.status === 200 ? await res.text() : '', mediaUrl);
    const newest = list.segments.at(-1);
    if (!newest || newest.seq <= seen) {
      await sleep(200);
      continue;
    }
    const first = seen < 0;
    seen = newest.seq;
    if (first) continue; // the segment listed when we arrived may be old: measure from the next one
    const key = keys.get(newest.key) ?? (await bytes(newest.key));
    keys.set(newest.key, key);
    const iv = Buffer.alloc(16);
    iv.writeBigUInt64BE(BigInt(newest.seq), 8);
    const decipher = createDecipheriv('aes-128-cbc', key, iv);
    const clear = Buffer.concat([decipher.update(await bytes(newest.url)), decipher.final()]);
    const availableAt = Date.now();
    const file = path.join(work, 'segment.ts');
    fs.writeFileSync(file, clear);
    const { stdout } = await run(
      mediaBinaries().ffmpeg,
      [
        '-v',
        'error',
        '-i',
        file,
        '-map',
        '0:v:0',
        '-vf',
        `scale=${COLS}:${2 * ROWS}:flags=area`,
        '-f',
        'rawvideo',
        '-pix_fmt',
        'gray',
        'pipe:1',
      ],
      { encoding: 'buffer', maxBuffer: 1 << 20 },
    );
    // A clock read back must lie between the push's start and the moment the segment was in hand.
    const clocks = readClocks(stdout as Buffer).filter((ms) => ms >= pushedAt && ms <= availableAt);
    if (clocks.length === 0) {
      misreads++;
      if (misreads > 3) throw new Error('the burned-in clock could not be read back from the decoded frames');
      continue;
    }
    latencies.push(availableAt - Math.min(...clocks));
    edgeLatencies.push(availableAt - Math.max(...clocks));
  }
  await cpuRead;
  const cpu = cpuWindow as { cpu: number; seconds: number };
  const size = SMOKE ? ', a smoke run' : '';
  report({
    figure: `Live glass-to-glass p50, clock burned into a 640×360 RTMP push → the 360p live segment in a member's hands (signed playlist polled every 200 ms, AES key, decrypted), the segment's first frame, loopback, ${latencies.length} segments of 2 s${size}`,
    ours: quantile(latencies, 0.5) / 1000,
    unit: 's',
    reference: SEGMENT_MS / 1000,
    referenceLabel: 'one segment',
    target: '≤ 10 s',
    pass: quantile(latencies, 0.5) <= 10_000,
  });
  report({
    figure: `Live glass-to-glass p95 (the same ${latencies.length} segments; their newest frame: p50 ${(quantile(edgeLatencies, 0.5) / 1000).toFixed(2)} s)${size}`,
    ours: quantile(latencies, 0.95) / 1000,
    unit: 's',
    reference: SEGMENT_MS / 1000,
    referenceLabel: 'one segment',
    target: '≤ 10 s',
    pass: quantile(latencies, 0.95) <= 10_000,
  });
  report({
    figure: `Live ladder CPU per second of live video (the ingest's ffmpeg: decode, 360p + 240p x264 at the default preset veryfast, AAC; ${cpu.seconds.toFixed(0)} s of a 640×360 25 fps push)${size}`,
    ours: cpu.cpu / cpu.seconds,
    unit: 'CPU-s/video-s',
    target: 'report',
  });

  // Viewers at the live edge, doubling until one misses a segment.
  let served:
    | {
        viewers: number;
        apiCores: number;
        clientCores: number;
        busy: number;
        fetches: number;
        p99: number;
        mbps: number;
        kbPerSegment: number;
        keptUp: string;
      }
    | undefined;
  let failedAt:
    | { viewers: number; late: number; fetches: number; worst: number; apiCores: number; clientCores: number; busy: number; keptUp: string }
    | undefined;
  for (const n of LEVELS) {
    const urls = await Promise.all(memberTokens.slice(1, n + 1).map((t) => mediaPlaylistUrl(base, show.id, t)));
    let late = 0;
    let fetches = 0;
    let segmentBytes = 0;
    let segmentsFetched = 0;
    const cycles: number[] = [];
    let errors = 0;
    const stopAt = performance.now() + LEVEL_MS;
    // Whether the push and the ladder keep up: segments published over the level (one per 2 s in real time).
    const edge = async () => parsePlaylist(await (await fetch(mediaUrl)).text(), mediaUrl).segments.at(-1)?.seq ?? 0;
    const edge0 = await edge();
    const c0 = cpuSeconds(apiPid);
    const machine = machineBusy();
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      urls.map(async (url, i) => {
        await sleep((i * SEGMENT_MS) / urls.length); // players arrive spread over a segment
        let last = -1;
        const viewerKeys = new Set<string>();
        while (performance.now() < stopAt) {
          const started = performance.now();
          try {
            const list = parsePlaylist((await bytes(url.href)).toString('utf8'), url);
            // A player starts three segments behind the edge, then fetches each new one.
            const fresh = list.segments.filter((s) => s.seq > (last < 0 ? (list.segments.at(-1)?.seq ?? 0) - 3 : last));
            for (const s of fresh) {
              if (!viewerKeys.has(s.key)) {
                await bytes(s.key);
                viewerKeys.add(s.key);
              }
              segmentBytes += (await bytes(s.url)).length;
              segmentsFetched++;
              last = s.seq;
            }
          } catch {
            errors++;
          }
          const took = performance.now() - started;
          cycles.push(took);
          fetches++;
          if (took > SEGMENT_MS) late++;
          await sleep(Math.max(0, SEGMENT_MS - took));
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const published = (await edge()) - edge0;
    const keptUp = `${published} segments published in ${seconds.toFixed(0)} s`;
    const apiCores = (cpuSeconds(apiPid) - c0) / seconds;
    const busy = machine.end();
    const client = process.cpuUsage(client0);
    const clientCores = (client.user + client.system) / 1e6 / seconds;
    const worst = Math.max(...cycles);
    const mbps = (segmentBytes * 8) / 1e6 / seconds;
    const kbPerSegment = segmentBytes / 1024 / Math.max(1, segmentsFetched);
    console.log(
      `  ${n} viewers: ${fetches} polls, ${late} late, ${errors} failed, p99 ${quantile(cycles, 0.99).toFixed(0)} ms, worst ${worst.toFixed(0)} ms, ${kbPerSegment.toFixed(0)} KiB a segment, ${mbps.toFixed(0)} Mbit/s served, ${keptUp}; API process ${(apiCores * 100).toFixed(0)} % of a core, the bench's viewers ${(clientCores * 100).toFixed(0)} %, machine ${(busy * 100).toFixed(0)} % busy`,
    );
    if (late > 0 || errors > 0) {
      failedAt = { viewers: n, late: late + errors, fetches, worst, apiCores, clientCores, busy, keptUp };
      break;
    }
    served = { viewers: n, apiCores, clientCores, busy, fetches, p99: quantile(cycles, 0.99), mbps, kbPerSegment, keptUp };
  }
  report({
    figure: `Live viewers served by one API process at the live edge (each its own member and signed playlist, polled every 2 s, each new 360p segment and key fetched; the process also ingests and runs the ladder), no fetch later than 2 s${served ? `; API process ${pct(served.apiCores)} of a core, the bench's viewers ${pct(served.clientCores)}, machine ${pct(served.busy)} busy, poll p99 ${served.p99.toFixed(0)} ms, ${served.kbPerSegment.toFixed(0)} KiB a segment, ${served.mbps.toFixed(0)} Mbit/s served, ${served.keptUp}` : ''}${failedAt ? `; at ${failedAt.viewers}: ${failedAt.late} of ${failedAt.fetches} polls late (worst ${(failedAt.worst / 1000).toFixed(1)} s; API process ${pct(failedAt.apiCores)} of a core, the bench's viewers ${pct(failedAt.clientCores)}, machine ${pct(failedAt.busy)} busy, ${failedAt.keptUp})` : `; the largest level tried (${LEVELS.at(-1)})`}${size}`,
    ours: served?.viewers ?? 0,
    unit: 'viewers',
    target: 'report',
  });
} finally {
  push?.stop();
  push?.child.kill('SIGTERM');
  server?.child.kill('SIGTERM');
  if (server) {
    const child = server.child;
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
  fs.rmSync(work, { recursive: true, force: true });
}
