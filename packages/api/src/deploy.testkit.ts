/**
 * The tested deployment of deploy.int.test.ts, started in one of its two media shapes, so the suite
 * runs the same journey over both:
 *   local: two API processes on one DATA_DIR (the shared disk nginx reads), the leader transcoding,
 *          nginx rendered from deploy/nginx.conf.template as deploy/nginx.conf is;
 *   s3:    two API processes on their own DATA_DIRs with MEDIA_STORE=s3://… on the suite's Ceph RGW,
 *          TRANSCODE_IN_SERVER=false and two token runners (`pnpm cli transcode-runner --server`
 *          one API process each, holding only a RUNNER_TOKEN made with `pnpm cli runners token
 *          create`, each with its own home), nginx rendered with --media-store s3 as
 *          deploy/nginx.s3.conf is.
 * Everything is a real process: the API's entry point, the CLI, Debian's nginx, PostgreSQL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderNginxConf, standaloneNginxConf } from '../../../deploy/render-nginx.mjs';
import { API_MAIN_ARGS } from '../test/apiEntry.js';
import { runCli } from '../test/childServer.js';
import { type FreshStore, freshStore, TEST_ADMIN } from '../test/harness.js';
import { type FreshBucket, freshBucket, type MediaKind } from '../test/s3.js';
import { productionSiteConfigFile } from '../test/siteConfig.js';
import { type Runner, startTokenRunner } from './transcode/runners.testkit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const TOKEN_SECRET = 'deploy-test-secret-0123456789abcdef0123456789';
export const DATA_KEY_SECRET = 'deploy-test-data-key-0123456789abcdef0123456789';

export interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
}

/**
 * A free loopback port, held until `release()` (just before nginx binds it): a port found free and
 * let go at once could be taken meanwhile by another test process's server, or handed out again.
 */
function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      resolve({ port, release: () => new Promise<void>((done) => s.close(() => done())) });
    });
  });
}

/** The port an API process started with PORT=0 listens on, from its 'server listening' log line (0 until then). */
const listeningPort = (out: string) => Number(/"url":"http:\/\/127\.0\.0\.1:(\d+)"[^\n]*"msg":"server listening"/.exec(out)?.[1] ?? 0);

function startProcess(
  name: string,
  cmd: string,
  args: string[],
  env: Record<string, string>,
  ready: (out: string) => boolean | Promise<boolean>,
): Promise<Proc> {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 60_000);
    const check = setInterval(async () => {
      if (await ready(out)) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ name, child, output: () => out });
      }
    }, 100);
    child.on('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Deployment {
  media: MediaKind;
  /** nginx's address: everything a client does goes through it. */
  base: string;
  store: FreshStore;
  bucket?: FreshBucket;
  /** api-a (started first: the leader), api-b. */
  apis: Proc[];
  apiPorts: number[];
  /** Each API process's DATA_DIR (the same one twice on the local store). */
  apiDataDirs: string[];
  runners: Runner[];
  /** Each runner's home (its scratch inside): a runner has no DATA_DIR. */
  runnerHomes: string[];
  /** The media store's variables every process has (empty on the local store). */
  mediaEnv: Record<string, string>;
  /** What nginx's media locations answer in X-Media-Served-By. */
  mediaServedBy: 'nginx' | 'nginx-s3';
  stop(): Promise<void>;
}

export async function startDeployment(media: MediaKind): Promise<Deployment> {
  const store = await freshStore('postgres');
  const bucket = media === 's3' ? await freshBucket() : undefined;
  const prefix = fs.mkdtempSync(path.join(store.dataDir, '..', 'members-nginx-'));
  for (const d of ['tmp', 'clips']) fs.mkdirSync(path.join(prefix, d));
  const ownDir = (name: string) => fs.mkdtempSync(path.join(prefix, `${name}-`));
  // nginx's workers run as an unprivileged user (www-data/nobody when started as root): they
  // must be able to reach DATA_DIR/media and nginx's own cache and temp directories, as in a real deployment.
  fs.chmodSync(store.dataDir, 0o755);
  fs.chmodSync(prefix, 0o755);
  // On the object store no disk is shared: each process has its own DATA_DIR (scratch only).
  const apiDataDirs = media === 's3' ? [store.dataDir, ownDir('api-b')] : [store.dataDir, store.dataDir];
  const mediaEnv: Record<string, string> = bucket ? { ...bucket.env, TRANSCODE_IN_SERVER: 'false' } : {};
  // The API processes take the ports the system gives them (PORT=0); nginx's port is held until it starts.
  const nginxPort = await reservePort();
  const pn = nginxPort.port;
  const base = `http://127.0.0.1:${pn}`;
  const env = (name: string, dataDir: string): Record<string, string> => ({
    NODE_ENV: 'production',
    // No mail server in this deployment test: mails go to the outbox files, said out loud.
    MAIL_TRANSPORT: 'outbox',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: store.env.DATABASE_URL as string,
    TOKEN_SECRET,
    // Production requires a key for second-factor secrets; this deployment's admin has not enrolled
    // (the second factor itself is proven in identity/mfa.int.test.ts), so it is not demanded here.
    MFA_KEY_SECRET: 'deploy-test-mfa-key-0123456789abcdef0123456789',
    DATA_KEY_SECRET,
    REQUIRE_ADMIN_2FA: 'false',
    // Reuse detection across processes is checked at once in the suite; the reuse interval that lets a
    // client which lost a rotated cookie in (identity/session.int.test.ts) is off here.
    REFRESH_REUSE_INTERVAL_SECONDS: '0',
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    PUBLIC_URL: base,
    TRUST_PROXY: 'true',
    MEDIA_ACCEL: 'nginx',
    MEDIA_ACCEL_PREFIX: '/_protected_media/',
    INSTANCE_ID: name,
    LIFECYCLE_INTERVAL_SECONDS: '2',
    TRANSCODE_PRESET: 'ultrafast',
    WEB_DIST: path.join(prefix, 'no-web'),
    SITE_CONFIG: productionSiteConfigFile(),
    ...mediaEnv,
  });
  const apis: Proc[] = [];
  const runners: Runner[] = [];
  const runnerHomes: string[] = [];
  let nginx: Proc | undefined;
  const stop = async () => {
    // SIGTERM: a runner stops its ffmpeg and gives its jobs back (no orphan left reading the bucket).
    const alive = [nginx, ...apis, ...runners].filter(
      (p): p is Proc | Runner => !!p && p.child.exitCode === null && p.child.signalCode === null,
    );
    const exits = alive.map((p) => new Promise((r) => p.child.once('exit', r)));
    for (const p of alive) p.child.kill('SIGTERM');
    await Promise.all(exits);
    await bucket?.cleanup();
    await store.cleanup();
    fs.rmSync(prefix, { recursive: true, force: true });
  };
  try {
    // One after the other, so the first one is the leader.
    for (const [i, name] of ['api-a', 'api-b'].entries())
      apis.push(
        await startProcess(
          name,
          process.execPath,
          [...API_MAIN_ARGS],
          env(name, apiDataDirs[i] as string),
          (o) => o.includes('Site running at') && listeningPort(o) > 0,
        ),
      );
    const apiPorts = apis.map((p) => listeningPort(p.output()));
    const site = renderNginxConf({
      upstreams: apiPorts.map((p) => `127.0.0.1:${p}`),
      listen: `127.0.0.1:${pn}`,
      // The name in PUBLIC_URL (`base`): any other Host is closed by the default server.
      serverName: '127.0.0.1',
      mediaRoot: path.join(store.dataDir, 'media'),
      mediaPrefix: '/_protected_media/',
      cacheDir: path.join(prefix, 'grants'),
      mediaStore: media,
      // The gateway's endpoint is an IP address: nginx never asks the resolver.
      resolver: '127.0.0.1',
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), standaloneNginxConf(prefix, site));
    await nginxPort.release();
    nginx = await startProcess(
      'nginx',
      '/usr/sbin/nginx',
      ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')],
      {},
      () => listening(pn),
    );
    if (media === 's3') {
      // Token runners, as on machines of their own: an address of the site and a token, nothing else.
      // Each calls one API process directly, not nginx: the suite checks that nginx alternates its
      // own requests between the processes, which the runners' heartbeats would interleave.
      const made = await runCli(env('cli', store.dataDir), ['runners', 'token', 'create', 'deploy-runners']);
      const token = /rnr_[A-Za-z0-9_-]{43}/.exec(made.out)?.[0];
      if (made.code !== 0 || !token) throw new Error(`runners token create: ${made.code}\n${made.out}`);
      for (const name of ['runner-1', 'runner-2']) runnerHomes.push(ownDir(name));
      const started = await Promise.allSettled(
        runnerHomes.map((home, i) => startTokenRunner(`http://127.0.0.1:${apiPorts[i]}`, token, home)),
      );
      for (const r of started) if (r.status === 'fulfilled') runners.push(r.value);
      for (const r of started) if (r.status === 'rejected') throw r.reason;
    }
    return {
      media,
      base,
      store,
      bucket,
      apis,
      apiPorts,
      apiDataDirs,
      runners,
      runnerHomes,
      mediaEnv,
      mediaServedBy: media === 's3' ? 'nginx-s3' : 'nginx',
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
