/**
 * A domain area plugs into the app through this shape: its read-model projections, its
 * checkpointed subscribers, its routes, anything it starts with the server (schedulers, the admin
 * bootstrap), its gauges, and its part of a member's data rights (what it exports and what it
 * erases of them). `modules.ts` lists them; `app.ts` and `main.ts` wire them.
 */
import type { memberExportSchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { Projection } from '../eventstore/projections.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { AppEnv } from '../http/appEnv.js';
import type { ModuleGauge } from '../metrics/index.js';
import type { Caller } from '../shared/eventMetadata.js';
import type { AppContext } from './context.js';

/**
 * The one registrar shape: a file of routes exports `const xxxRoutes: Routes = (api, ctx) => { … }`
 * and its area's index lists them in `AppModule.routes`. What a registrar needs besides the context
 * (the auth limits, the chat hub) it reads from the context itself.
 */
export type Routes = (api: Hono<AppEnv>, ctx: AppContext) => void;

/** "Download my data" (GET /users/me/export), as the shared `memberExportSchema` describes it. */
export type MemberExport = z.infer<typeof memberExportSchema>;

/** A member being erased, as privacy's erasure hands them to each module's `erasePersonalData`. */
export interface ErasedMember {
  userId: string;
  /** Every e-mail address the member used (lower case), read before their data key went. */
  addresses: readonly string[];
  /** Who erased them: for the events a module appends on its own streams (billing's cancellations). */
  caller: Caller & { actorId: string };
}

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
  /**
   * This area's sections of a member's data export (privacy/'s "download my data"): what it keeps
   * about them, read from its own tables and streams, decoded as every reader decodes them. Each
   * section of `MemberExport` comes from exactly one module; privacy checks that all are there.
   * A module that stores a new personal field shows it here (privacy/exportComplete.int.test.ts
   * fails on a sealed field the export leaves out).
   */
  exportPersonalData?: (ctx: AppContext, userId: string) => Promise<Partial<MemberExport>>;
  /**
   * What this area keeps about a member outside the event log, removed when they are erased:
   * privacy/'s erasure runs every module's, in the list's order, after `MemberErased` destroyed
   * their data key (their sealed fields read as placeholders from then on) and after mail writes
   * that saw the key have finished. Returns counts for the erasure's log line.
   */
  erasePersonalData?: (ctx: AppContext, member: ErasedMember) => Promise<Record<string, number> | undefined>;
}
