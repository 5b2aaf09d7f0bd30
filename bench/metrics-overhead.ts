/**
 * Cost of the Prometheus HTTP middleware, over real HTTP on loopback with wrk:
 * 1. a bare Hono app answering GET /api/videos/:id with a small JSON, with and without `httpMetrics`
 *    (the middleware's own cost, nothing else in the way), alternated over several rounds;
 * 2. the real server (embedded SQLite, 12 catalog videos) answering GET /api/videos, metrics on, and a
 *    scrape of /metrics (time per scrape, which runs the read-model gauges).
 * Machine load moves these figures; compare the pair from the same run, not across runs.
 *
 *   npx tsx bench/metrics-overhead.ts [--seconds N] [--rounds N]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ingestVideoFile } from '../packages/api/src/catalog/ingest.js';
import { parseEnv } from '../packages/api/src/config/env.js';
import { loadSiteConfig } from '../packages/api/src/config/site.js';
import { makeMp4 } from '../packages/api/src/media/media.testkit.js';
import { createMetrics, httpMetrics } from '../packages/api/src/metrics/index.js';
import { modules } from '../packages/api/src/wiring/modules.js';
import { startServer } from '../packages/api/src/wiring/server.js';

// The API package's own dependencies (the workspace root does not list them).
const fromApi = createRequire(new URL('../packages/api/package.json', import.meta.url));
const { serve } = (await import(fromApi.resolve('@hono/node-server'))) as typeof import('@hono/node-server');
// Hono's ESM build, the copy the API's modules load (its CommonJS twin has other internal symbols).
const { Hono } = (await import(new URL('../packages/api/node_modules/hono/dist/index.js', import.meta.url).href)) as typeof import('hono');
const { default: pino } = (await import(fromApi.resolve('pino'))) as typeof import('pino');
type Hono = InstanceType<typeof Hono>;

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const QUICK =
  process.argv.includes('--quick') ||
  process.argv.includes('--smoke') ||
  process.env.BENCH_QUICK === '1' ||
  process.env.BENCH_SMOKE === '1';
const SECONDS = arg('seconds', QUICK ? 1 : 5);
const ROUNDS = arg('rounds', QUICK ? 1 : 3);

/** wrk runs as a child process without blocking this one's event loop (the servers live here). */
async function wrk(url: string): Promise<number> {
  const { stdout: out } = await promisify(execFile)('wrk', ['-t1', '-c16', `-d${SECONDS}s`, url], { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!m?.[1]) throw new Error(`wrk said: ${out}`);
  return Number(m[1]);
}

async function listen(app: Hono): Promise<{ url: string; close(): void }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

function bareApp(withMetrics: boolean): Hono {
  const app = new Hono();
  if (withMetrics) app.use('*', httpMetrics(createMetrics()));
  app.get('/api/videos/:id', (c) => c.json({ success: true, data: { id: c.req.param('id'), title: 'A video' } }));
  return app;
}

const bare = { on: await listen(bareApp(true)), off: await listen(bareApp(false)) };
const rates = { on: [] as number[], off: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  rates.off.push(await wrk(`${bare.off.url}/api/videos/42`));
  rates.on.push(await wrk(`${bare.on.url}/api/videos/42`));
}
bare.on.close();
bare.off.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const on = median(rates.on);
const off = median(rates.off);
console.log(`bare Hono GET /api/videos/:id  without metrics: ${off.toFixed(0)} req/s   with: ${on.toFixed(0)} req/s`);
console.log(
  `  middleware cost ≈ ${((1 / on - 1 / off) * 1e6) | 0} µs/request (${((1 - on / off) * 100).toFixed(1)} % of this trivial route)`,
);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-metrics-'));
const env = parseEnv({
  NODE_ENV: 'test',
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  TOKEN_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  DATA_KEY_SECRET: 'bench-data-key-bench-data-key-bench-data-key-0123',
  METRICS_PORT: '0',
  // The list needs catalog rows, not HLS ladders: twelve transcodes would run beside wrk and skew it.
  TRANSCODE_IN_SERVER: 'false',
} as NodeJS.ProcessEnv);
const server = await startServer(env, loadSiteConfig().config, modules, { logger: pino({ level: 'silent' }) });
try {
  // The uploader is only named in the events' metadata (the testkits load vitest, which cannot run here).
  const admin = { id: 'bench-admin' };
  const clip = await makeMp4(dataDir, 1);
  for (let i = 0; i < 12; i++) {
    const copy = path.join(dataDir, `clip-${i}.mp4`);
    fs.copyFileSync(clip, copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title: `Clip ${i}`, accessLevel: 'free', actorId: admin.id });
    if (!r.ok) throw new Error(r.error.message);
  }
  const listed = (await (await fetch(`${server.url}/api/videos?limit=50`)).json()) as { data?: { videos?: unknown[] } };
  if (listed.data?.videos?.length !== 12) throw new Error(`the catalog lists ${listed.data?.videos?.length} videos, not 12`);
  const lists: number[] = [];
  for (let r = 0; r < ROUNDS; r++) lists.push(await wrk(`${server.url}/api/videos`));
  const list = median(lists);
  console.log(`real server (SQLite, 12 videos) GET /api/videos with metrics: ${list.toFixed(0)} req/s`);
  const started = performance.now();
  const scrapes = 200;
  let bytes = 0;
  for (let i = 0; i < scrapes; i++) bytes = (await (await fetch(`${server.metricsUrl}/metrics`)).text()).length;
  console.log(`scrape of /metrics: ${((performance.now() - started) / scrapes).toFixed(2)} ms each, ${bytes} bytes`);
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
