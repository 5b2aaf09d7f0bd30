/**
 * GET /metrics, never public by default. Two ways to expose it, either or both:
 * - `METRICS_PORT`: a listener of its own, bound to `METRICS_HOST` (127.0.0.1 unless set), no token;
 * - `METRICS_TOKEN`: on the main port, for `Authorization: Bearer <token>` only (401 otherwise).
 * With no token, the main port answers 404 for /metrics (as if it did not exist).
 */
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { Env } from '../config/env.js';
import { refuse } from '../http/envelope.js';
import type { Metrics } from './metrics.js';

async function exposition(c: Context, metrics: Metrics): Promise<Response> {
  const body = await metrics.registry.metrics();
  return c.body(body, 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1].trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The main port's /metrics handler. */
export function metricsOnMainPort(env: Pick<Env, 'METRICS_TOKEN'>, metrics: Metrics) {
  return async function serveMetrics(c: Context): Promise<Response> {
    const token = env.METRICS_TOKEN;
    if (!token) return refuse(c, 'not_found', 'Not found');
    if (!tokenMatches(c.req.header('authorization'), token)) {
      c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return refuse(c, 'metrics.token_required', 'A valid metrics token is required');
    }
    return exposition(c, metrics);
  };
}

export interface MetricsListener {
  url: string;
  stop(): Promise<void>;
}

/** The separate metrics listener, when `METRICS_PORT` is set. */
export async function startMetricsListener(
  env: Pick<Env, 'METRICS_PORT' | 'METRICS_HOST'>,
  metrics: Metrics,
): Promise<MetricsListener | undefined> {
  if (env.METRICS_PORT === undefined) return undefined;
  const app = new Hono();
  app.get('/metrics', (c) => exposition(c, metrics));
  app.all('*', (c) => refuse(c, 'not_found', 'Not found'));
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: env.METRICS_PORT, hostname: env.METRICS_HOST }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = env.METRICS_HOST.includes(':') ? `[${env.METRICS_HOST}]` : env.METRICS_HOST;
  return {
    url: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        const http = server as unknown as import('node:http').Server;
        http.close(() => resolve());
        http.closeAllConnections?.();
      }),
  };
}
