/**
 * The live chat across two API processes on one PostgreSQL (issue 30 item 7), with MEMBERS members
 * connected by WebSocket (1,000; 200 with --quick), half to each process:
 *
 *   fan-out    p50 and p99 of the time from an admin's reply posted through one process to its push on
 *              the member's socket held by the other (one reply at a time, alternating directions),
 *              against PostgreSQL's own NOTIFY → LISTEN round trip on the same server (the mechanism's
 *              floor: the reply also commits an event, projects it and is read back before the push).
 *   memory     the server processes' resident memory after the idle sockets opened, less before, per
 *              connection (mean of the two processes; the first 20 sockets warm the processes up).
 *   accepted   replies per second the two processes accept together (16 in flight, through both),
 *              every member connected (each reply is pushed to its member and to the admin's socket).
 *
 *   npx tsx bench/chat.ts [--quick]
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from '../packages/api/src/config/env.js';
import { loadSiteConfig } from '../packages/api/src/config/site.js';
import { modules } from '../packages/api/src/wiring/modules.js';
import { startServer } from '../packages/api/src/wiring/server.js';
import { apiCall, rssMb, startBenchServer } from './lib/benchServer.mjs';
import { freshDatabase } from './lib/freshDatabase.js';
import { QUICK, report, SMOKE } from './lib/report.mjs';

const fromApi = createRequire(new URL('../packages/api/package.json', import.meta.url));
const { default: pino } = (await import(fromApi.resolve('pino'))) as typeof import('pino');
const { default: pg } = (await import(fromApi.resolve('pg'))) as { default: typeof import('pg') };

const MEMBERS = SMOKE ? 40 : QUICK ? 200 : 1000;
const SAMPLES = SMOKE ? 10 : QUICK ? 60 : 400;
const ACCEPTED = SMOKE ? 40 : QUICK ? 300 : 2000;
const IN_FLIGHT = 16;
const SECRET = randomBytes(32).toString('hex');
const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');
/** An access token exactly as the API signs one (HS256 over the shared TOKEN_SECRET), valid an hour. */
function token(id: string, role: 'admin' | 'member'): string {
  const iat = Math.floor(Date.now() / 1000);
  const head = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ sub: id, role, typ: 'access', iat, exp: iat + 3600 }))}`;
  return `${head}.${createHmac('sha256', SECRET).update(head).digest('base64url')}`;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] as number;
};

/** The members as identity events (no argon2 per member: the bench is about the chat), migrations run once. */
async function seed(databaseUrl: string, dataDir: string): Promise<{ adminId: string; members: string[] }> {
  const env = parseEnv({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    TOKEN_SECRET: SECRET,
    DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
    MFA_KEY_SECRET: 'bench-mfa-key-bench-mfa-key-bench-mfa-key-0123',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    TRANSCODE_CONCURRENCY: '0',
  } as NodeJS.ProcessEnv);
  const server = await startServer(env, loadSiteConfig().config, modules, { logger: pino({ level: 'silent' }) });
  try {
    const at = new Date().toISOString();
    const members = Array.from({ length: MEMBERS }, () => randomUUID());
    for (const id of members) {
      await server.ctx.store.append(
        `user-${id}`,
        [
          {
            type: 'UserRegistered',
            data: {
              userId: id,
              email: `${id}@example.test`,
              firstName: 'Bench',
              lastName: 'Member',
              dateOfBirth: '1990-01-01',
              passwordHash: 'not-a-real-hash',
              role: 'member',
              registeredAt: at,
            },
          },
          { type: 'UserApproved', data: { userId: id, approvedBy: 'bench', approvedAt: at } },
        ],
        { expectedVersion: 'no_stream', metadata: { actorId: null, at } },
      );
    }
    const admin = await server.ctx.db.get<{ id: string }>('SELECT id FROM users WHERE email_lower = ?', [ADMIN.email]);
    if (!admin) throw new Error('the bench admin was not bootstrapped');
    return { adminId: admin.id, members };
  } finally {
    await server.stop();
  }
}

interface Socket {
  ws: WebSocket;
  /** Resolvers waiting for a message id. */
  waiting: Map<string, (at: number) => void>;
}

/** Node's (undici's) WebSocket: its second argument may carry request headers (the DOM's type knows only subprotocols). */
const NodeWebSocket = WebSocket as unknown as new (url: string, init: { headers: Record<string, string> }) => WebSocket;

async function openSocket(base: string, bearer: string): Promise<Socket> {
  const { ticket } = await apiCall(base, 'POST', '/chat/ticket', undefined, bearer);
  // The site's own origin: the server refuses a handshake that names none.
  const ws = new NodeWebSocket(`${base.replace(/^http/, 'ws')}/api/chat/socket?ticket=${ticket}`, { headers: { origin: base } });
  const waiting = new Map<string, (at: number) => void>();
  ws.addEventListener('message', (e) => {
    const at = performance.now();
    const id = (JSON.parse(String(e.data)) as { message: { id: string } }).message.id;
    waiting.get(id)?.(at);
    waiting.delete(id);
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`socket on ${base} failed`)), { once: true });
  });
  return { ws, waiting };
}

/** PostgreSQL's own NOTIFY → LISTEN round trip, one at a time (the floor of the cross-process push). */
async function notifyRoundTrips(url: string, n: number): Promise<number[]> {
  const listener = new pg.Client({ connectionString: url });
  const sender = new pg.Client({ connectionString: url });
  await listener.connect();
  await sender.connect();
  await listener.query('LISTEN bench_chat');
  let arrived: (() => void) | undefined;
  listener.on('notification', () => arrived?.());
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const got = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const t = performance.now();
    await sender.query('SELECT pg_notify($1, $2)', ['bench_chat', String(i)]);
    await got;
    out.push(performance.now() - t);
  }
  await listener.end();
  await sender.end();
  return out;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-chat-'));
const db = await freshDatabase('chat');
const servers: Awaited<ReturnType<typeof startBenchServer>>[] = [];
const sockets: Socket[] = [];
try {
  const { adminId, members } = await seed(db.url, work);
  const shared = {
    DATABASE_URL: db.url,
    TOKEN_SECRET: SECRET,
    DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
    MFA_KEY_SECRET: 'bench-mfa-key-bench-mfa-key-bench-mfa-key-0123',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    TRANSCODE_CONCURRENCY: '0',
    // No reply mails from the bench's unread replies.
    CHAT_MAILS_PER_MEMBER_PER_DAY: '0',
  };
  servers.push(await startBenchServer(path.join(work, 'a'), shared));
  servers.push(await startBenchServer(path.join(work, 'b'), shared));
  const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
  const adminToken = token(adminId, 'admin');

  // Every member connected, half to each process (member i on process i % 2), 20 openings at a time.
  // The first batch warms both processes up (the first tickets, upgrades and sockets load code and
  // grow the heap once); memory is measured over the others.
  const homes: number[] = [];
  let before: number[] = [];
  for (let i = 0; i < members.length; i += 20) {
    const batch = members.slice(i, i + 20);
    const opened = await Promise.all(batch.map((id, j) => openSocket(servers[(i + j) % 2]?.url as string, token(id, 'member'))));
    for (const [j, s] of opened.entries()) {
      sockets[i + j] = s;
      homes[i + j] = (i + j) % 2;
    }
    if (i === 0) {
      await new Promise((r) => setTimeout(r, 2000));
      before = [rssMb(a.child.pid), rssMb(b.child.pid)];
    }
  }
  await new Promise((r) => setTimeout(r, 3000));
  const after = [rssMb(a.child.pid), rssMb(b.child.pid)];
  // And the admin's inbox, on process B: every reply is pushed there too.
  sockets.push(await openSocket(b.url, adminToken));
  const measured = (members.length - 20) / 2;
  const perSocketKb = [0, 1].map((p) => (((after[p] as number) - (before[p] as number)) * 1024) / measured);
  const memoryKb = ((perSocketKb[0] as number) + (perSocketKb[1] as number)) / 2;

  // Fan-out latency: a reply through one process, to a member on the other, one at a time.
  const reply = (via: string, memberId: string, text: string) =>
    apiCall(via, 'POST', `/admin/chat/conversations/${memberId}/messages`, { text }, adminToken) as Promise<{ message: { id: string } }>;
  const latencies: number[] = [];
  for (let k = 0; k < SAMPLES + 5; k++) {
    const i = (k * 7919) % members.length;
    const socket = sockets[i] as Socket;
    const via = servers[1 - (homes[i] as number)]?.url as string;
    let arrivedAt = 0;
    const early = new Map<string, number>();
    const t0 = performance.now();
    const posted = reply(via, members[i] as string, `bench ${k}`);
    // The push may beat the POST's answer: catch every message until we know the id.
    const catchAll = (e: MessageEvent) => {
      const id = (JSON.parse(String(e.data)) as { message: { id: string } }).message.id;
      early.set(id, performance.now());
    };
    socket.ws.addEventListener('message', catchAll);
    const { message } = await posted;
    arrivedAt =
      early.get(message.id) ??
      (await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`reply ${k} not pushed within 10 s`)), 10_000);
        socket.waiting.set(message.id, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      }));
    socket.ws.removeEventListener('message', catchAll);
    if (k >= 5) latencies.push(arrivedAt - t0); // the first five warm both processes up
  }
  const floor = await notifyRoundTrips(db.url, SAMPLES);
  const conn = `${members.length.toLocaleString('en-US')} members connected (${members.length / 2} per process)${SMOKE ? ', a smoke run' : QUICK ? ', quick: 1,000 in a full run' : ''}`;
  for (const [label, q] of [
    ['p50', 0.5],
    ['p99', 0.99],
  ] as const) {
    report({
      figure: `Chat fan-out ${label}, reply posted through one API process to the member's socket on the other, PostgreSQL, ${conn}, ${SAMPLES} replies`,
      ours: quantile(latencies, q),
      unit: 'ms',
      reference: quantile(floor, q),
      referenceLabel: 'PostgreSQL NOTIFY → LISTEN alone',
      target: 'report (issue 30: < 1 s)',
      pass: quantile(latencies, q) < 1000,
    });
  }
  report({
    figure: `Chat memory per idle WebSocket connection (server RSS after opening − before, per socket, mean of the two processes, the first 20 sockets as warm-up; ${conn})`,
    ours: memoryKb,
    unit: 'KiB',
    target: 'report',
  });

  // Accepted: IN_FLIGHT replies at a time, through both processes, to every member in turn.
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let k = next++; k < ACCEPTED; k = next++) {
        const i = k % members.length;
        await reply(servers[k % 2]?.url as string, members[i] as string, `load ${k}`);
      }
    }),
  );
  const perSecond = (ACCEPTED / (performance.now() - t)) * 1000;
  report({
    figure: `Chat messages accepted (admin replies, ${IN_FLIGHT} in flight through both processes, stored and pushed live), PostgreSQL, ${conn}`,
    ours: perSecond,
    unit: 'messages/s',
    target: 'report',
  });
} finally {
  for (const s of sockets) s?.ws.close();
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))));
  await db.drop().catch((err) => console.log(`could not drop the bench database: ${(err as Error).message}`));
  fs.rmSync(work, { recursive: true, force: true });
}
