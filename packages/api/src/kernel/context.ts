/**
 * The application context: configuration, the database, the event store with every module's
 * inline projections, the media store, the clock and the logger. Built once by `server.ts`, the CLI and the tests.
 */
import path from 'node:path';
import type pino from 'pino';
import { ConfigError, type Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';
import { SchemaTooNewError } from '../db/migrate.js';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { instrumentStore } from '../eventstore/instrumentedStore.js';
import { inlineProjector, migrateProjections, type Projection } from '../eventstore/projections.js';
import { createSqlEventStore } from '../eventstore/sqlEventStore.js';
import type { EventStore } from '../eventstore/types.js';
import { createLogger } from '../logging/logger.js';
import { type MediaStorage, openMediaStore } from '../media/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { type Clock, type IdGenerator, systemClock, uuidIds } from '../shared/clock.js';
import { createShredder, masterKeysOf, type Shredder } from '../shredding/index.js';

export interface AppContext {
  env: Env;
  site: SiteConfig;
  db: Db;
  /** The log as readers need it: personal fields decrypted, erased members' fields as placeholders. */
  store: EventStore;
  /** The log's stored bytes (sealed envelopes), for what must see them as hashed: `audit verify`, checkpoints. */
  rawStore: EventStore;
  /** Seals and opens personal data (crypto-shredding), with this process's DATA_KEY_SECRET. */
  shredder: Shredder;
  /** Where originals, thumbnails, captions and ladders live (`MEDIA_STORE`: the local disk or a bucket). */
  media: MediaStorage;
  clock: Clock;
  ids: IdGenerator;
  logger: pino.Logger;
  projections: Projection[];
  metrics: Metrics;
}

export interface ContextOptions {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: pino.Logger;
}

export function openDatabase(env: Env): Db {
  if (env.DATABASE_URL) return openPostgres(env.DATABASE_URL);
  return openSqlite(path.join(env.DATA_DIR, 'store.sqlite'));
}

export function describeStore(env: Env): string {
  if (env.DATABASE_URL) return `PostgreSQL (${new URL(env.DATABASE_URL).host}${new URL(env.DATABASE_URL).pathname})`;
  return `embedded SQLite (${path.join(env.DATA_DIR, 'store.sqlite')})`;
}

export { SchemaTooNewError };

/** The crypto-shredding codec for this environment (DATA_KEY_SECRET, plus DATA_KEY_SECRET_PREVIOUS during a rotation). */
export function shredderFor(env: Env): Shredder {
  if (!env.DATA_KEY_SECRET) throw new ConfigError('DATA_KEY_SECRET is not set (main.ts and the CLI fill a dev default)');
  return createShredder(masterKeysOf(env.DATA_KEY_SECRET, env.DATA_KEY_SECRET_PREVIOUS));
}

/**
 * Opens the database, applies the schema migrations (refusing a database newer than this code),
 * rebuilds any projection whose version changed, and opens the event store with `projections`
 * inline. The composition roots (server, CLI, test harness) pass every module's projections.
 */
export async function createContext(env: Env, site: SiteConfig, projections: Projection[], opts: ContextOptions = {}): Promise<AppContext> {
  const logger = opts.logger ?? createLogger(env);
  const clock = opts.clock ?? systemClock;
  const shredder = shredderFor(env);
  const db = openDatabase(env);
  try {
    const metrics = createMetrics();
    const sqlStore = await createSqlEventStore(db, { project: inlineProjector(projections), now: () => clock.now(), codec: shredder });
    const store = instrumentStore(sqlStore, metrics.appendObserver);
    const rawStore = await createSqlEventStore(db, { now: () => clock.now() });
    await migrateProjections(db, projections, { logger, codec: shredder });
    metrics.collectFrom(db, store);
    return {
      env,
      site,
      db,
      store,
      rawStore,
      shredder,
      media: await openMediaStore(env),
      clock,
      ids: opts.ids ?? uuidIds,
      logger,
      projections,
      metrics,
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.store.close();
  await ctx.db.close();
}
