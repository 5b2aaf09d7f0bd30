/**
 * A domain area plugs into the app through this shape: its read-model projections, its
 * checkpointed subscribers, its routes, and anything it starts with the server (schedulers,
 * the admin bootstrap). `modules.ts` lists them; `app.ts` and `main.ts` wire them.
 */
import type { Hono } from 'hono';
import type { AppContext } from './context.js';
import type { Projection } from './eventstore/projections.js';
import type { Subscriber } from './eventstore/subscriber.js';
import type { AppEnv } from './http/appEnv.js';
import type { ModuleGauge } from './metrics/index.js';

/**
 * The one registrar shape: a file of routes exports `const xxxRoutes: Routes = (api, ctx) => { … }`
 * and its area's index lists them in `AppModule.routes`. What a registrar needs besides the context
 * (the auth limits, the chat hub) it reads from the context itself.
 */
export type Routes = (api: Hono<AppEnv>, ctx: AppContext) => void;

export interface Started {
  stop(): Promise<void>;
}

export interface AppModule {
  name: string;
  projections?: Projection[];
  subscribers?: (ctx: AppContext) => Subscriber[];
  /** Mounts routes under /api. */
  routes?: Routes;
  /** Runs once when the server starts (after migrations), before it accepts requests. */
  start?: (ctx: AppContext) => Promise<Started | undefined> | Started | undefined;
  /**
   * Time-driven work (schedulers, sweepers, senders) that exactly one process runs: started only
   * while this process is the elected leader (shared/leader.ts), stopped when it stops leading.
   */
  background?: (ctx: AppContext) => Promise<Started | undefined> | Started | undefined;
  /** This area's series on /metrics, read at scrape time (the composition root registers them once per context). */
  gauges?: (ctx: AppContext) => ModuleGauge[];
}
