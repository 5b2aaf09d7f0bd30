/**
 * Starts the whole server: context, module start-ups (admin bootstrap, schedulers), checkpointed
 * subscribers, and the HTTP listener. `stop()` stops accepting, lets in-flight requests finish,
 * stops the background work and closes the store. Used by `main.ts` and by the integration tests.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';
import { type RunningSubscribers, registerCheckpoints, startSubscribers } from '../eventstore/subscriber.js';
import { settleUnreadBodies } from '../http/unreadBody.js';
import { type AppContext, type ContextOptions, closeContext, createContext } from '../kernel/context.js';
import type { AppModule, Started } from '../kernel/module.js';
import { startMetricsListener } from '../metrics/index.js';
import { electLeader } from '../shared/leader.js';
import { createApp } from './app.js';

export interface RunningServer {
  ctx: AppContext;
  url: string;
  port: number;
  subscribers: RunningSubscribers;
  /** The separate /metrics listener's base URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/** `modules` come from the caller (main.ts: `modules.ts`), so nothing below the root imports the module list. */
export async function startServer(
  env: Env,
  site: SiteConfig,
  modules: readonly AppModule[],
  opts: ContextOptions & { webDist?: string } = {},
): Promise<RunningServer> {
  const ctx = await createContext(
    env,
    site,
    modules.flatMap((m) => m.projections ?? []),
    opts,
  );
  ctx.metrics.addGauges(modules.flatMap((m) => m.gauges?.(ctx) ?? []));
  const started: Started[] = [];
  for (const m of modules) {
    const s = await m.start?.(ctx);
    if (s) started.push(s);
  }
  const leader = await electLeader(ctx, {
    work: async () => {
      const work: Started[] = [];
      for (const m of modules) {
        const s = await m.background?.(ctx);
        if (s) work.push(s);
      }
      return work;
    },
  });
  started.push(leader);
  const subscriberList = modules.flatMap((m) => m.subscribers?.(ctx) ?? []);
  await registerCheckpoints(
    ctx.db,
    subscriberList.map((s) => s.name),
  );
  const app = createApp(ctx, modules, { webDist: opts.webDist ?? env.WEB_DIST });
  // Listen first: subscribers far behind the head catch up beside serving (their lag shows in
  // /api/health and the metrics), never before it.
  // Upgraded sockets (the chat) are no longer HTTP connections: `closeAllConnections` does not end
  // them, and an open one would hold `http.close()` (a restart, SIGTERM) for ever. Tracked here.
  const sockets = new WebSocketServer({ noServer: true });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      // WebSocket upgrades (the chat's socket) go through the app like any request (`upgradeWebSocket`).
      {
        fetch: settleUnreadBodies(app.fetch),
        port: env.PORT,
        hostname: env.HOST,
        websocket: { server: sockets },
      },
      () => resolve(s),
    );
  });
  const subscribers = startSubscribers(ctx.db, ctx.store, subscriberList, {
    logger: ctx.logger,
    onError: (err, sub) => ctx.logger.error({ err, subscriber: sub.name }, 'subscriber failed; will retry'),
  });
  // Uploads of several GB take long; idle sockets must not hold a shutdown.
  (server as unknown as import('node:http').Server).requestTimeout = 0;
  const metricsListener = await startMetricsListener(env, ctx.metrics);
  const addr = server.address() as AddressInfo;
  const host = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  let stopping: Promise<void> | undefined;

  return {
    ctx,
    port: addr.port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`,
    subscribers,
    metricsUrl: metricsListener?.url,
    stop() {
      stopping ??= (async () => {
        const http = server as unknown as import('node:http').Server;
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections?.();
        // 1001 "going away": clients reconnect to another process (or this one once it is back).
        for (const ws of sockets.clients) ws.close(1001, 'The server is restarting');
        const timer = setTimeout(() => {
          http.closeAllConnections?.();
          for (const ws of sockets.clients) ws.terminate();
        }, env.SHUTDOWN_TIMEOUT_MS);
        await closed;
        clearTimeout(timer);
        await metricsListener?.stop();
        for (const s of started.reverse()) await s.stop();
        await subscribers.stop();
        await closeContext(ctx);
      })();
      return stopping;
    },
  };
}
