/**
 * Test harness: a real server on a free loopback port over a fresh store — a temporary SQLite data
 * directory, or a fresh PostgreSQL database created on the server named by TEST_DATABASE_URL.
 * `forEachStore` runs a suite against both; PostgreSQL is required when CI=true (never a silent skip).
 */

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { describe } from 'vitest';
import { type Env, parseEnv } from '../src/config/env.js';
import type { SiteConfig } from '../src/config/site.js';
import { migrations } from '../src/db/migrations/index.js';
import { closeContext, createContext } from '../src/kernel/context.js';
import { TestClock } from '../src/shared/clock.testkit.js';
import { allProjections, modules } from '../src/wiring/modules.js';
import { type RunningServer, startServer } from '../src/wiring/server.js';
import { type FreshBucket, freshBucket, type MediaKind } from './s3.js';
import { exampleSiteConfig } from './siteConfig.js';

export type StoreKind = 'sqlite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export const storeKinds: StoreKind[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

if (!TEST_DATABASE_URL && process.env.CI === 'true') {
  throw new Error('TEST_DATABASE_URL must be set in CI: the PostgreSQL suites may not be skipped');
}
if (!TEST_DATABASE_URL) {
  console.warn('TEST_DATABASE_URL not set: PostgreSQL variants of the suites are not run (run `pnpm test` to get one)');
}

/** Runs `fn` once per available store, as `describe('<name> [sqlite]')` and `describe('<name> [postgres]')`. */
export function forEachStore(name: string, fn: (kind: StoreKind) => void): void {
  for (const kind of storeKinds) describe(`${name} [${kind}]`, () => fn(kind));
}

export interface FreshStore {
  env: Partial<Record<string, string>>;
  dataDir: string;
  cleanup(): Promise<void>;
}

/** A database's URL on the tests' PostgreSQL server. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The PostgreSQL database the stores startTestServer makes are copied from: an empty store as a
 * server's first start leaves it (the schema migrations applied, every projection's tables
 * created), and nothing else: no event, no key, no checkpoint. Creating a database from it takes a
 * file copy, where migrating each one took about a second of PostgreSQL's CPU on the loaded CI
 * machine, and the suites make hundreds. Named after a hash of the migrations and the projections'
 * schemas, so a changed schema gets a template of its own; built under an advisory lock (the two
 * vitest workers share the server) and renamed into place once complete, so a half-built template
 * is never copied.
 */
let template: Promise<string> | undefined;

/** PostgreSQL 15's file copy (a checkpoint and a copy of the files) instead of WAL-logging every block: 0.2 s instead of 0.4–0.5 s a database. */
let fileCopy: boolean | undefined;

async function pgTemplate(admin: pg.Client): Promise<string> {
  template ??= (async () => {
    const templateName = `members_tpl_${createHash('sha256')
      .update(
        JSON.stringify([
          migrations.map((m) => [m.id, m.name, m.postgres]),
          allProjections().map((p) => [p.name, p.version, p.tables, p.schema]),
        ]),
      )
      .digest('hex')
      .slice(0, 16)}`;
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [templateName]);
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateName]);
      if (rowCount === 0) {
        const building = `${templateName}_building`;
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${building}`);
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-template-'));
        try {
          const ctx = await createContext(
            testEnv({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl(building) }),
            exampleSiteConfig(),
            allProjections(),
          );
          await closeContext(ctx);
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${templateName}`);
      }
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [templateName]);
    }
    return templateName;
  })();
  return template;
}

/**
 * A fresh, empty store: a temp data dir, plus a new PostgreSQL database for 'postgres'. `template:
 * true` (what startTestServer asks for): a database already at the current schema, copied from the
 * template above, for a server that would migrate an empty one first thing anyway. The suites that
 * make a store themselves get an empty one: a restore target, an older schema written by hand, a
 * child process that migrates it.
 */
export async function freshStore(kind: StoreKind, opts: { template?: boolean } = {}): Promise<FreshStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-test-'));
  if (kind === 'sqlite') {
    return { env: { DATA_DIR: dataDir }, dataDir, cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  const dbName = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  try {
    fileCopy ??= Number((await admin.query('SHOW server_version_num')).rows[0].server_version_num) >= 150000;
    const from = opts.template ? ` TEMPLATE ${await pgTemplate(admin)}` : '';
    await admin.query(`CREATE DATABASE ${dbName}${from}${fileCopy ? ' STRATEGY FILE_COPY' : ''}`);
  } finally {
    await admin.end();
  }
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl(dbName) },
    dataDir,
    async cleanup() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    },
  };
}

export const TEST_ADMIN = { email: 'admin@example.test', password: 'admin-password-123' };

/** The master key of test servers, in-process and child (so a CLI child reads what a test server sealed). */
export const TEST_DATA_KEY_SECRET = 'test-data-key-test-data-key-test-data-key-0123456789';

/**
 * x264's preset wherever a suite transcodes, in-process or in a child: the ladder's steps are the same
 * at less than half veryfast's CPU (1.2 against 2.6 CPU-s for 10 s of 720p); the production default's
 * cost is bench/transcode.ts's to measure.
 */
export const TEST_TRANSCODE_PRESET = 'ultrafast';

export function testEnv(extra: Partial<Record<string, string>> = {}): Env {
  return parseEnv({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    TOKEN_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    MFA_KEY_SECRET: 'test-mfa-key-test-mfa-key-test-mfa-key-0123456789',
    DATA_KEY_SECRET: TEST_DATA_KEY_SECRET,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    // Suites that do not test transcoding leave their uploads queued (no ffmpeg in the background,
    // no Transcode* events appearing in logs they compare); the transcode suites set 1.
    TRANSCODE_CONCURRENCY: '0',
    TRANSCODE_PRESET: TEST_TRANSCODE_PRESET,
    // No RTMP ingest unless a suite asks for one (live/: a free port of its own).
    LIVE_RTMP_PORT: '0',
    ...extra,
  } as NodeJS.ProcessEnv);
}

export interface TestServer extends RunningServer {
  clock: TestClock;
  store: FreshStore;
  /** The server's bucket when started with `media: 's3'` (removed by close()). */
  bucket?: FreshBucket;
  site: SiteConfig;
  /** Stops the server but keeps the data (for restart tests). */
  restart(extraEnv?: Partial<Record<string, string>>): Promise<TestServer>;
  /** Stops the server and deletes the data. */
  close(): Promise<void>;
}

export async function startTestServer(
  kind: StoreKind,
  opts: {
    env?: Partial<Record<string, string>>;
    site?: Partial<SiteConfig>;
    clock?: TestClock;
    store?: FreshStore;
    /** A logger of the test's own (e.g. to a file the test reads); silent by default. */
    logger?: pino.Logger;
    /** `s3`: media in a fresh bucket on the tests' Ceph RGW (test/s3.ts); `local` (default): DATA_DIR/media. */
    media?: MediaKind;
    /** An existing bucket to share (another server's); not removed by close(). */
    bucket?: FreshBucket;
  } = {},
): Promise<TestServer> {
  const store = opts.store ?? (await freshStore(kind, { template: true }));
  const ownBucket = !opts.bucket && opts.media === 's3' ? await freshBucket() : undefined;
  const bucket = opts.bucket ?? ownBucket;
  const clock = opts.clock ?? new TestClock(new Date());
  const site = { ...exampleSiteConfig(), ...opts.site } as SiteConfig;
  const env = testEnv({ ...store.env, ...bucket?.env, ...opts.env });
  const server = await startServer(env, site, modules, { clock, logger: opts.logger ?? pino({ level: 'silent' }) });
  // The server's own address is its PUBLIC_URL (main.ts does the same for PORT=0 in development):
  // mailed links and the same-origin check point at it.
  if (!env.PUBLIC_URL) server.ctx.env.PUBLIC_URL = server.url;
  const ts: TestServer = {
    ...server,
    clock,
    store,
    site,
    ...(bucket && { bucket }),
    async restart(extraEnv) {
      await server.stop();
      return startTestServer(kind, { env: { ...opts.env, ...extraEnv }, site: opts.site, clock, store, logger: opts.logger, bucket });
    },
    async close() {
      await server.stop();
      await store.cleanup();
      await ownBucket?.cleanup();
    },
  };
  return ts;
}

/** A tiny JSON client over fetch that returns the envelope and the status. */
export interface ApiAnswer<T = any> {
  status: number;
  body: { success: boolean; data?: T; error?: string };
  headers: Headers;
}

export function apiClient(baseUrl: string) {
  async function call<T = any>(
    method: string,
    p: string,
    opts: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${baseUrl}/api${p}`, { method, headers, body });
    const text = await res.text();
    let parsed: ApiAnswer['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${p} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }
  return {
    call,
    get: <T = any>(p: string, token?: string) => call<T>('GET', p, { token }),
    post: <T = any>(p: string, body?: unknown, token?: string) => call<T>('POST', p, { body, token }),
    put: <T = any>(p: string, body?: unknown, token?: string) => call<T>('PUT', p, { body, token }),
    del: <T = any>(p: string, token?: string) => call<T>('DELETE', p, { token }),
  };
}

export function tmpDir(prefix = 'members-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export { randomBytes };
