/**
 * The cost of re-checking the access decision on every progressive media request (issue 27 item 3,
 * streaming/accessRecheck.ts): wrk, 16 connections, against one member's signed progressive URL,
 * each answer a decision only (MEDIA_ACCEL=nginx: X-Accel-Redirect, no body), on two bare Hono apps
 * over the same server context (embedded SQLite, a transcoded clip):
 *
 *   with the re-check     the media route as shipped (mediaRoutes): signature, the access
 *                         decision again (cached 15 s per viewer and video), the file, the answer;
 *   without it            the same route without the re-check, as it was: signature, the catalog
 *                         row, the file, the answer.
 *
 * Interleaved in a rotating order over `--rounds`; target: with ≥ 0.9× without.
 *
 *   npx tsx bench/media-decisions.ts [--seconds 5] [--rounds 5]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findVideo, hlsLadderOf } from '../packages/api/src/catalog/catalog.queries.js';
import { ingestVideoFile } from '../packages/api/src/catalog/ingest.js';
import { parseEnv } from '../packages/api/src/config/env.js';
import { loadSiteConfig } from '../packages/api/src/config/site.js';
import { makeMp4 } from '../packages/api/src/media/media.testkit.js';
import { mediaRoutes, progressiveKey } from '../packages/api/src/streaming/media.route.js';
import { sendStoredFile } from '../packages/api/src/streaming/sendMedia.js';
import { verifyStreamSignature } from '../packages/api/src/streaming/streamSignature.js';
import { modules } from '../packages/api/src/wiring/modules.js';
import { startServer } from '../packages/api/src/wiring/server.js';
import { apiCall } from './lib/benchServer.mjs';
import { QUICK, report, SMOKE, spread } from './lib/report.mjs';

const fromApi = createRequire(new URL('../packages/api/package.json', import.meta.url));
const { serve } = (await import(fromApi.resolve('@hono/node-server'))) as typeof import('@hono/node-server');
// Hono's ESM build, the copy the API's modules load.
const { Hono } = (await import(new URL('../packages/api/node_modules/hono/dist/index.js', import.meta.url).href)) as typeof import('hono');
const { default: pino } = (await import(fromApi.resolve('pino'))) as typeof import('pino');
type App = InstanceType<typeof Hono>;

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const SECONDS = arg('seconds', SMOKE ? 1 : QUICK ? 2 : 5);
const ROUNDS = arg('rounds', SMOKE ? 1 : QUICK ? 3 : 5);
const CONNECTIONS = 16;

async function wrk(url: string): Promise<number> {
  const { stdout: out } = await promisify(execFile)('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, url], { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!m?.[1] || /Non-2xx/.test(out)) throw new Error(`wrk said: ${out}`);
  return Number(m[1]);
}

async function listen(app: App): Promise<{ url: string; close(): void }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-decisions-'));
const admin = { email: 'bench-admin@example.test', password: 'bench-admin-password-123' };
const env = parseEnv({
  NODE_ENV: 'test',
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  TOKEN_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
  MFA_KEY_SECRET: 'bench-mfa-key-bench-mfa-key-bench-mfa-key-0123456',
  ADMIN_EMAIL: admin.email,
  ADMIN_PASSWORD: admin.password,
  MEDIA_ACCEL: 'nginx',
  TRANSCODE_CONCURRENCY: '1',
  TRANSCODE_PRESET: 'ultrafast',
} as NodeJS.ProcessEnv);
const server = await startServer(env, loadSiteConfig().config, modules, { logger: pino({ level: 'silent' }) });
const servers: { close(): void }[] = [];
try {
  const ctx = server.ctx;
  const clip = await makeMp4(dataDir, 3);
  const ingested = await ingestVideoFile(ctx, { filePath: clip, title: 'Bench clip', accessLevel: 'free', actorId: 'bench-admin' });
  if (!ingested.ok) throw new Error(ingested.error.message);
  const videoId = ingested.videoId;
  for (;;) {
    const row = await findVideo(ctx.db, videoId);
    if (row && hlsLadderOf(row)) break;
    if (row?.transcode_status === 'failed') throw new Error('the clip did not transcode');
    await new Promise((r) => setTimeout(r, 250));
  }
  // An approved member (no plan: the free cap) and their signed progressive URL.
  const adminToken = (await apiCall(server.url, 'POST', '/auth/login', admin)).token;
  const member = { email: 'bench-viewer@example.test', password: 'bench-viewer-password-123' };
  const reg = await apiCall(server.url, 'POST', '/auth/register', {
    ...member,
    firstName: 'Bench',
    lastName: 'Viewer',
    dateOfBirth: '1990-01-01',
    agreeToTerms: true,
  });
  await apiCall(server.url, 'POST', `/admin/users/${reg.user.id}/approve`, undefined, adminToken);
  const token = (await apiCall(server.url, 'POST', '/auth/login', member)).token;
  const streamUrl = (await apiCall(server.url, 'GET', `/videos/${videoId}/stream`, undefined, token)).streamUrl as string | null;
  if (!streamUrl) throw new Error('no progressive URL for the member');
  const signed = new URL(streamUrl, server.url);
  const signedPath = `${signed.pathname}${signed.search}`;

  // With: the shipped route.
  const withApi = new Hono();
  mediaRoutes(withApi as never, ctx);
  const withApp = new Hono();
  withApp.route('/api', withApi);
  // Without: the same decision minus the re-check (the route as it was, naming the rendition's file).
  const withoutApp = new Hono();
  withoutApp.get('/api/media/videos/:id', async (c) => {
    const videoId = c.req.param('id');
    const check = verifyStreamSignature(ctx, videoId, {
      u: c.req.query('u'),
      e: c.req.query('e'),
      r: c.req.query('r'),
      s: c.req.query('s'),
    });
    if (!check.ok) return c.json({ success: false }, 403);
    const row = await findVideo(ctx.db, videoId);
    const rendition = row ? hlsLadderOf(row)?.renditions.find((r) => r.name === check.grant.file && r.progressive) : undefined;
    if (!rendition) return c.json({ success: false }, 404);
    return sendStoredFile(c as never, ctx, progressiveKey(videoId, rendition.name), 'video/mp4', check.grant.expires);
  });
  const targets = [
    { label: 'with the re-check', app: await listen(withApp), rates: [] as number[] },
    { label: 'without it', app: await listen(withoutApp), rates: [] as number[] },
  ];
  servers.push(...targets.map((t) => t.app));
  for (const t of targets) {
    const res = await fetch(`${t.app.url}${signedPath}`);
    if (res.status !== 200 || !res.headers.get('x-accel-redirect')) throw new Error(`${t.label}: ${res.status} without X-Accel-Redirect`);
  }
  // Warm-up (JIT, SQLite page cache), not measured.
  for (const t of targets) await wrk(`${t.app.url}${signedPath}`);
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) t.rates.push(await wrk(`${t.app.url}${signedPath}`));
    ratios.push((targets[0]?.rates.at(-1) ?? 0) / (targets[1]?.rates.at(-1) ?? 1));
    console.log(`round ${round + 1}: ${targets.map((t) => `${t.label} ${t.rates.at(-1)?.toFixed(0)} req/s`).join(', ')}`);
  }
  const [withCheck, without] = targets as [(typeof targets)[number], (typeof targets)[number]];
  const q = spread(ratios);
  report({
    figure: `Media decisions with the access re-check (cached 15 s per viewer and video) against without it (signed progressive URL, X-Accel answer, no body), ${CONNECTIONS} connections, ${ROUNDS} rounds interleaved`,
    ours: spread(withCheck.rates).median,
    oursRange: spread(withCheck.rates).range,
    unit: 'req/s',
    reference: spread(without.rates).median,
    referenceRange: spread(without.rates).range,
    referenceLabel: 'the same route without the re-check',
    ratio: q.median,
    ratioRange: q.range,
    // Without the re-check the route reads the catalog row each time; with it, the cached decision holds the row.
    aboveReference: 'the re-check caches the catalog row it reads, which the route without it reads on every request',
    target: '≥ 0.9×',
    pass: q.median >= 0.9,
  });
} finally {
  for (const s of servers) s.close();
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
