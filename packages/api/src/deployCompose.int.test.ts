/**
 * The Compose shapes started without a container engine: api-a's environment as Compose gives it
 * (deploy/Dockerfile's ENV, then the service's `environment` with deploy/compose.env.example's
 * variables filled as an operator fills them) and the image's command in the checkout, so the
 * production server must start from the shipped example. What lives outside the container is the
 * test's: the database (`db`), the mail server, the bucket, a free port on loopback, a temporary
 * DATA_DIR for the volume. deployCompose.unit.test.ts checks the files themselves.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/freePort.mjs';
import { freshStore, storeKinds } from '../test/harness.js';
import { freshBucket, mediaKinds } from '../test/s3.js';
import { productionSiteConfigFile } from '../test/siteConfig.js';
import { DEPLOY, dockerfileEnv, loadCompose, readEnvFile } from './deployCompose.testkit.js';
import { startSmtpServer } from './mail/smtpServer.testkit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SHAPES = { local: ['compose.yaml'], s3: ['compose.yaml', 'compose.s3.yaml'] } as const;
/** deploy/.env as an operator writes it: the example, each empty secret from `openssl rand -hex 32`. */
const OPERATOR = Object.fromEntries(
  Object.entries(readEnvFile(path.join(DEPLOY, 'compose.env.example'))).map(([k, v]) => [k, v || 'cd'.repeat(32)]),
);
const IMAGE = dockerfileEnv('Dockerfile');
const CMD = /^CMD \["node", "([^"]+)"\]$/m.exec(fs.readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8'))?.[1] as string;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe.runIf(storeKinds.includes('postgres'))('deploy/compose.yaml api-a started from compose.env.example', () => {
  for (const media of mediaKinds())
    it(`[${media}] the production server answers /api/health`, async () => {
      expect(CMD).toBe('packages/api/dist/main.js');
      const service = loadCompose([...SHAPES[media]], OPERATOR).services['api-a'];
      const store = await freshStore('postgres');
      cleanups.push(() => store.cleanup());
      const smtp = await startSmtpServer();
      cleanups.push(() => smtp.close());
      const bucket = media === 's3' ? await freshBucket() : undefined;
      if (bucket) cleanups.push(() => bucket.cleanup());
      const port = await freePort();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-compose-'));
      cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
      const container = { ...IMAGE, ...service?.environment };
      expect(container.NODE_ENV).toBe('production');
      // The addresses of what is outside the container; every other value as Compose gives it.
      const env = {
        PATH: process.env.PATH as string,
        ...container,
        DATABASE_URL: store.env.DATABASE_URL as string,
        SMTP_URL: smtp.url,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        // The operator's site.config.json, which the image copies from the checkout (docs/deployment.md);
        // production refuses the example's test-vector address.
        SITE_CONFIG: productionSiteConfigFile(),
        ...bucket?.env,
      };
      const child: ChildProcess = spawn(process.execPath, [CMD], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout?.on('data', (d) => (out += d));
      child.stderr?.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((r) => child.once('exit', r));
      cleanups.push(async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
      });
      const until = Date.now() + 60_000;
      let health: { status: number; body: { status?: string; data?: { status?: string } } } | undefined;
      while (!health && Date.now() < until) {
        const early = await Promise.race([exited, new Promise((r) => setTimeout(r, 250, 'running'))]);
        if (early !== 'running') throw new Error(`the server exited with ${early}:\n${out}`);
        const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
        if (res) health = { status: res.status, body: (await res.json()) as NonNullable<typeof health>['body'] };
      }
      expect({ status: health?.status, health: health?.body.data?.status ?? health?.body.status }, out).toEqual({
        status: 200,
        health: 'ok',
      });
      expect(out).not.toMatch(/\[dev default\] (TOKEN|MFA|DATA)/);
    });
});
