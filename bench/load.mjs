// Load: the real server (packages/api/src/wiring/main.ts, embedded SQLite, a throwaway DATA_DIR) on
// loopback under a realistic mix, with wrk (Debian's /usr/bin/wrk, Lua scripts in bench/load/),
// bounded in time:
//   - members (200 by default, half of them subscribed) list the library, open a video's details,
//     ask for its signed stream URL and fetch a random 256 KiB range of it (the subscribed ones any
//     video, the others the free ones only: every request is one the site must answer 2xx);
//   - one admin approves pending registrations and looks at the pending list, another verifies
//     pending payments and reads the dashboard figures, each pausing 1000/`--admin-rate` ms between
//     requests, every second one a write while its queue lasts.
// Prints requests/s, p50/p99 latency and errors (non-2xx answers, socket errors, timeouts) per
// group and in total; errors must be zero (exit code 1 otherwise). The last line is
// `LOAD_RESULT {json}` for the test that runs it briefly (packages/api/test/load.int.test.ts).
//
//   node bench/load.mjs [--seconds 30] [--members 200] [--connections 32] [--admin-rate 4]
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { apiCall, startBenchServer } from './lib/benchServer.mjs';

const LUA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load');
const round = (ms) => Math.round(ms * 10) / 10;

const { values: opt } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    members: { type: 'string', default: '200' },
    connections: { type: 'string', default: '32' },
    'admin-rate': { type: 'string', default: '4' },
    // `pnpm bench -- --quick`: a short run (the other benches' small version).
    quick: { type: 'boolean', default: false },
    // `pnpm bench -- --smoke`: the smallest run that goes through every step (bench/lib/report.mjs).
    smoke: { type: 'boolean', default: false },
  },
});
if (opt.quick && !process.argv.includes('--seconds')) opt.seconds = '5';
if (opt.smoke && !process.argv.includes('--seconds')) opt.seconds = '1';
if (opt.smoke && !process.argv.includes('--members')) opt.members = '20';
const SECONDS = Number(opt.seconds);
const MEMBERS = Number(opt.members);
const CONNECTIONS = Number(opt.connections);
const ADMIN_RATE = Number(opt['admin-rate']);
const RANGE = 256 * 1024;
const TX = (i) => (BigInt(0x5eed) * 1_000_003n + BigInt(i)).toString(16).padStart(64, 'a');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-load-'));
const server = await startBenchServer(dataDir, {
  // All of the load comes from 127.0.0.1: the per-IP limits would otherwise refuse the setup.
  AUTH_REQUESTS_PER_IP_PER_MINUTE: '100000000',
  LOGIN_FAILURES_PER_ACCOUNT: '100000000',
  LOG_LEVEL: process.env.LOAD_LOG_LEVEL ?? 'error',
});
const base = server.url;
if (process.env.LOAD_LOG_LEVEL) server.child.stdout.pipe(process.stdout);
// Whatever happens, the server goes too.
process.on('exit', () => server.child.kill('SIGKILL'));
process.on('uncaughtException', (err) => {
  console.error(err);
  process.exit(1);
});

const call = (method, p, body, token) => apiCall(base, method, p, body, token);

/** Runs `fn` over `items` with `n` at a time (argon2 hashing makes registrations and logins slow). */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

try {
  const setupStarted = performance.now();
  const admin = (await call('POST', '/auth/login', server.admin)).token;

  // Three real videos (ffmpeg): one free, two premium.
  const mp4 = path.join(dataDir, 'load.mp4');
  const ffmpegArgs = '-v error -f lavfi -i testsrc=duration=20:size=640x360:rate=25 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -y';
  execFileSync('ffmpeg', [...ffmpegArgs.split(' '), mp4]);
  const bytes = fs.readFileSync(mp4);
  const videos = [];
  for (const [i, accessLevel] of ['free', 'premium', 'premium'].entries()) {
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: `Load clip ${i + 1}`, model: 'Luna Hart', duration: '0:20', accessLevel }))
      form.append(k, v);
    form.append('video', new Blob([bytes], { type: 'video/mp4' }), 'load.mp4');
    const res = await fetch(`${base}/api/admin/upload-video`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    videos.push({ id: (await res.json()).data.videoId, accessLevel, size: bytes.length });
  }

  const register = (tag) => (_, i) =>
    call('POST', '/auth/register', {
      email: `load-${tag}-${i}@example.test`,
      password: 'load-password-123',
      firstName: 'Load',
      lastName: `Member${i}`,
      dateOfBirth: '1990-01-01',
      agreeToTerms: true,
    }).then((d) => ({ id: d.user.id, email: `load-${tag}-${i}@example.test` }));
  const approvalQueue = Math.ceil((ADMIN_RATE * SECONDS) / 2);
  const members = await pool(Array.from({ length: MEMBERS }), 4, register('member'));
  const pending = await pool(Array.from({ length: approvalQueue }), 4, register('pending'));
  await pool(members, 4, (m) => call('POST', `/admin/users/${m.id}/approve`, undefined, admin));
  await pool(members, 4, async (m) => {
    m.token = (await call('POST', '/auth/login', { email: m.email, password: 'load-password-123' })).token;
  });
  // Half subscribe (payment verified now); the other half leave a payment for the admin to verify
  // during the run (they stay on free videos either way).
  const paymentQueue = [];
  await pool(members, 4, async (m, i) => {
    const intent = await call('POST', '/payments/create-subscription-intent', { planType: 'monthly' }, m.token);
    await call(
      'POST',
      '/payments/submit-bitcoin-payment',
      { userId: m.id, planType: 'monthly', btcAmount: intent.btcAmount, transactionHash: TX(i) },
      m.token,
    );
    if (i % 2 === 0) {
      await call('POST', `/admin/payments/${intent.paymentId}/verify`, undefined, admin);
      m.subscribed = true;
    } else paymentQueue.push(intent.paymentId);
  });
  // The signed stream URL each member's player would hold for each video it may watch (the run asks
  // for stream URLs too, and fetches ranges of these: wrk's scripts do not chain answers).
  // The clips are not transcoded here, so a member has no progressive file within their cap
  // (streamUrl null): their range requests go to the free clip's original, signed for the admin
  // (the same route, decision and bytes per range).
  const original = new URL((await call('GET', `/videos/${videos[0].id}/stream`, undefined, admin)).streamUrl, 'http://site.invalid');
  await pool(members, 4, async (m) => {
    m.streams = {};
    for (const v of videos.filter((x) => m.subscribed || x.accessLevel === 'free')) {
      const signed = (await call('GET', `/videos/${v.id}/stream`, undefined, m.token)).streamUrl;
      const u = signed ? new URL(signed, 'http://site.invalid') : original;
      m.streams[v.id] = u.pathname + u.search;
    }
  });
  const setupSeconds = (performance.now() - setupStarted) / 1000;

  // The run: wrk (C, on loopback) with Lua scripts (bench/load/*.lua), all three at once.
  const membersFile = path.join(dataDir, 'members.txt');
  fs.writeFileSync(membersFile, members.map((m) => [m.token, ...Object.entries(m.streams).flat()].join(' ')).join('\n'));
  const queueFile = (name, paths) => {
    const f = path.join(dataDir, `${name}.txt`);
    fs.writeFileSync(f, paths.join('\n'));
    return f;
  };
  const pauseMs = String(Math.round(1000 / ADMIN_RATE));
  const wrk = (name, script, args, connections, extra = []) =>
    new Promise((resolve, reject) => {
      execFile(
        'wrk',
        [
          '-t',
          String(Math.min(2, connections)),
          '-c',
          String(connections),
          '-d',
          `${SECONDS}s`,
          '--timeout',
          '30s',
          ...extra,
          '-s',
          script,
          base,
          '--',
          ...args,
        ],
        { maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const line = stdout.split('\n').find((l) => l.startsWith('WRK_RESULT '));
          if (err || !line) return reject(new Error(`wrk ${name}: ${err?.message ?? ''}\n${stdout}\n${stderr}`));
          const r = JSON.parse(line.slice('WRK_RESULT '.length));
          resolve({ name, requests: r.requests, seconds: r.durationUs / 1e6, p50: r.p50Us / 1000, p99: r.p99Us / 1000, errors: r.errors });
        },
      );
    });
  const adminAuth = ['-H', `Authorization: Bearer ${admin}`];
  const runs = await Promise.all([
    wrk(
      'members: list, details, stream URL, range',
      path.join(LUA, 'members.lua'),
      [membersFile, String(RANGE), String(bytes.length)],
      CONNECTIONS,
    ),
    wrk(
      'admin: pending list, approve',
      path.join(LUA, 'admin.lua'),
      [
        queueFile(
          'approvals',
          pending.map((p) => `/api/admin/users/${p.id}/approve`),
        ),
        pauseMs,
        '/api/admin/users/pending',
      ],
      1,
      adminAuth,
    ),
    wrk(
      'admin: stats, verify payment',
      path.join(LUA, 'admin.lua'),
      [
        queueFile(
          'verifications',
          paymentQueue.map((id) => `/api/admin/payments/${id}/verify`),
        ),
        pauseMs,
        '/api/admin/stats',
      ],
      1,
      adminAuth,
    ),
  ]);
  const rows = runs.map((r) => ({
    name: r.name,
    requests: r.requests,
    rps: Math.round(r.requests / r.seconds),
    p50: round(r.p50),
    p99: round(r.p99),
    errors: r.errors,
  }));
  const total = {
    name: 'total',
    requests: rows.reduce((s, r) => s + r.requests, 0),
    rps: rows.reduce((s, r) => s + r.rps, 0),
    p50: rows[0].p50,
    p99: Math.max(...rows.map((r) => r.p99)),
    errors: rows.reduce((s, r) => s + r.errors, 0),
  };
  // What the admins' writes did, read back from the API.
  const stats = await call('GET', '/admin/stats', undefined, admin);

  console.log(
    `load: ${SECONDS} s on ${base} (embedded SQLite), ${MEMBERS} members (${members.filter((x) => x.subscribed).length} subscribed) on ${CONNECTIONS} connections, 2 admins pausing ${pauseMs} ms between requests (every second one a write); setup ${setupSeconds.toFixed(1)} s`,
  );
  console.log(
    [
      'group'.padEnd(44),
      'requests'.padStart(9),
      'req/s'.padStart(7),
      'p50 ms'.padStart(7),
      'p99 ms'.padStart(7),
      'errors'.padStart(7),
    ].join(' '),
  );
  for (const r of [...rows, total]) {
    console.log(
      [
        r.name.padEnd(44),
        String(r.requests).padStart(9),
        String(r.rps).padStart(7),
        String(r.p50).padStart(7),
        String(r.p99).padStart(7),
        String(r.errors).padStart(7),
      ].join(' '),
    );
  }
  console.log(
    `queued for the admins: ${approvalQueue} registrations, ${paymentQueue.length} payments; dashboard after the run: ${JSON.stringify(stats)}`,
  );
  console.log(`LOAD_RESULT ${JSON.stringify({ seconds: SECONDS, members: MEMBERS, rows, total })}`);
  process.exitCode = total.errors === 0 ? 0 : 1;
} finally {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
