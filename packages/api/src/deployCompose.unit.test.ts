/**
 * deploy/compose.yaml (media on a shared volume) and deploy/compose.s3.yaml over it (media in an
 * object store, transcode runners), checked without a container engine: every variable a service
 * sets is one of the server's, the API image starts in production with what the operator's .env
 * (deploy/compose.env.example) gives it, nginx's config is the rendered template, and the object
 * store's shape shares no disk between processes and lets `--scale runner=N` work.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, renderNginxConf } from '../../../deploy/render-nginx.mjs';
import { transcodeRunner } from './cli/transcodeRunner.js';
import { fillDevDefaults } from './config/devDefaults.js';
import { checkMailTransport, envSchema, parseEnv } from './config/env.js';
import {
  type ComposeModel,
  DEPLOY,
  dockerfileEnv,
  loadCompose,
  readEnvFile,
  referencedVariables,
  type Service,
  volumeTarget,
} from './deployCompose.testkit.js';

const SHAPES = { local: ['compose.yaml'], s3: ['compose.yaml', 'compose.s3.yaml'] } as const;
const EXAMPLE = readEnvFile(path.join(DEPLOY, 'compose.env.example'));
/** The operator's .env: the example, its empty secrets filled as `openssl rand -hex 32` would. */
const OPERATOR = Object.fromEntries(Object.entries(EXAMPLE).map(([k, v]) => [k, v || 'ab'.repeat(32)]));
const API_IMAGE = dockerfileEnv('Dockerfile');

/** The services built from the API image (API processes and runners). */
const fromApiImage = (m: ComposeModel) => Object.entries(m.services).filter(([, s]) => s.build?.dockerfile === 'deploy/Dockerfile');

it('deploy/nginx.compose.conf and nginx.compose.s3.conf are the template rendered for the compose services', () => {
  const upstreams = ['api-a:8080', 'api-b:8080'];
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.compose.conf'), 'utf8')).toBe(renderNginxConf({ upstreams }));
  // Docker's embedded DNS answers for the store's host name (a service, or a name outside).
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.compose.s3.conf'), 'utf8')).toBe(
    renderNginxConf({ upstreams, mediaStore: 's3', resolver: '127.0.0.11' }),
  );
});

it('deploy/compose.env.example names every variable the compose files read', () => {
  for (const file of ['compose.yaml', 'compose.s3.yaml'])
    for (const name of referencedVariables(file)) expect({ file, name, listed: name in EXAMPLE }).toEqual({ file, name, listed: true });
});

it('every path to the built server or CLI in deploy/ is one the build writes', () => {
  const built = [...fs.readFileSync(path.join(DEPLOY, '../packages/api/build.mjs'), 'utf8').matchAll(/(\w+): 'src\/[\w/]+\.ts'/g)].map(
    (m) => `packages/api/dist/${m[1]}.js`,
  );
  expect(built).toEqual(['packages/api/dist/main.js', 'packages/api/dist/cli.js']);
  for (const file of fs.readdirSync(DEPLOY))
    for (const [p] of fs.readFileSync(path.join(DEPLOY, file), 'utf8').matchAll(/packages\/api\/dist\/[\w/.]+\.js/g))
      expect({ file, path: p, built: built.includes(p) }).toEqual({ file, path: p, built: true });
});

for (const [shape, files] of Object.entries(SHAPES)) {
  describe(`compose, ${shape} media (${files.join(' + ')})`, () => {
    const model = loadCompose([...files], OPERATOR);

    it("sets only the server's variables, and the API image starts in production with them", () => {
      const known = new Set(Object.keys(envSchema.shape));
      const services = fromApiImage(model);
      expect(services.map(([name]) => name)).toEqual(shape === 's3' ? ['api-a', 'api-b', 'runner'] : ['api-a', 'api-b']);
      for (const [name, s] of services) {
        if (name === 'runner') continue; // a token runner reads no server variable (below)
        for (const key of Object.keys(s.environment ?? {}))
          expect({ name, key, known: known.has(key) }).toEqual({ name, key, known: true });
        const env = parseEnv({ ...API_IMAGE, ...s.environment });
        expect(env.NODE_ENV).toBe('production');
        // Production refuses to start without its secrets (config/devDefaults.ts), and the API without a mail server.
        expect(() => fillDevDefaults(env, { inProduction: 'throw' })).not.toThrow();
        expect(() => checkMailTransport(env)).not.toThrow();
      }
    });

    it('gives every process the same database, secrets and media store', () => {
      const shared = ['DATABASE_URL', 'TOKEN_SECRET', 'MFA_KEY_SECRET', 'DATA_KEY_SECRET', 'MEDIA_STORE', 'AWS_ENDPOINT_URL_S3'];
      const values = fromApiImage(model)
        .filter(([name]) => name !== 'runner')
        .map(([, s]) => shared.map((k) => s.environment?.[k]));
      for (const v of values) expect(v).toEqual(values[0]);
      for (const name of ['api-a', 'api-b']) {
        const env = parseEnv({ ...API_IMAGE, ...model.services[name]?.environment });
        // nginx's internal location is the prefix the API names in X-Accel-Redirect.
        expect([env.MEDIA_ACCEL, env.MEDIA_ACCEL_PREFIX, env.TRUST_PROXY, env.INSTANCE_ID]).toEqual([
          'nginx',
          DEFAULTS.mediaPrefix,
          true,
          name,
        ]);
      }
    });

    if (shape === 'local')
      it('keeps media on one volume shared by the API processes and read by nginx', () => {
        const dataDir = API_IMAGE.DATA_DIR as string;
        for (const name of ['api-a', 'api-b']) {
          expect(model.services[name]?.volumes).toEqual([`media:${dataDir}`]);
          expect(parseEnv({ ...API_IMAGE, ...model.services[name]?.environment }).TRANSCODE_IN_SERVER).toBe(true);
        }
        expect(model.services.nginx?.volumes).toEqual(['./nginx.compose.conf:/etc/nginx/conf.d/default.conf:ro', `media:${dataDir}:ro`]);
        expect(fs.readFileSync(path.join(DEPLOY, 'nginx.compose.conf'), 'utf8')).toContain(`root ${dataDir}/media;`);
        expect(model.services.runner).toBeUndefined();
      });

    if (shape === 's3')
      it('shares no disk: media in the bucket, transcoding in token runners that scale, nginx fetching from the store', async () => {
        const services = fromApiImage(model);
        for (const [name, s] of services.filter(([n]) => n !== 'runner')) {
          const env = parseEnv({ ...API_IMAGE, ...s.environment });
          expect({ name, store: env.MEDIA_STORE, inServer: env.TRANSCODE_IN_SERVER }).toEqual({
            name,
            store: EXAMPLE.MEDIA_STORE,
            inServer: false,
          });
        }
        // Each process's DATA_DIR (scratch only) is its own volume; no volume is mounted by two services.
        const mounts = Object.entries(model.services).flatMap(([name, s]) =>
          (s.volumes ?? [])
            .filter((v) => !v.startsWith('./'))
            .map((v) => ({ name, source: v.includes(':') ? (v.split(':')[0] as string) : `anonymous ${name}` })),
        );
        const sources = mounts.map((m) => m.source);
        expect(sources.filter((s, i) => sources.indexOf(s) !== i)).toEqual([]);
        for (const [name, s] of services) expect([name, (s.volumes ?? []).map(volumeTarget)]).toEqual([name, [API_IMAGE.DATA_DIR]]);
        expect(model.services.nginx?.volumes).toEqual(['./nginx.compose.s3.conf:/etc/nginx/conf.d/default.conf:ro']);
        // `docker compose up --scale runner=3`: no fixed name or host port, an anonymous scratch volume per replica.
        const runner = model.services.runner as Service;
        // A least-privilege HTTP client: the runner token is its whole environment — no database, no
        // secret, no store credential, nothing of the site's configuration.
        expect(runner.environment).toEqual({ RUNNER_TOKEN: OPERATOR.RUNNER_TOKEN });
        expect(runner.command).toEqual([
          ...['node', 'packages/api/dist/cli.js', 'transcode-runner', '--server', OPERATOR.PUBLIC_URL],
          ...['--concurrency', OPERATOR.TRANSCODE_CONCURRENCY, '--scratch', `${API_IMAGE.DATA_DIR}/scratch`],
        ]);
        // `--server` starts the token runner without building the site's context; before the operator
        // has put a token in deploy/.env it says so and exits 2 (restarted until there is one).
        const saved = process.env.RUNNER_TOKEN;
        delete process.env.RUNNER_TOKEN;
        try {
          expect(await transcodeRunner.runBare?.(runner.command?.slice(3) ?? [])).toBe(2);
        } finally {
          if (saved !== undefined) process.env.RUNNER_TOKEN = saved;
        }
        expect([runner.container_name, runner.ports, runner.volumes]).toEqual([undefined, undefined, [API_IMAGE.DATA_DIR]]);
        expect(runner.environment?.INSTANCE_ID).toBeUndefined();
        expect(fs.readFileSync(path.join(DEPLOY, '../packages/api/src/cli/commands.ts'), 'utf8')).toContain(
          "'transcode-runner': transcodeRunner",
        );
        const named = new Set(Object.keys(model.volumes ?? {}));
        for (const m of mounts)
          if (!m.source.startsWith('anonymous')) expect({ ...m, declared: named.has(m.source) }).toEqual({ ...m, declared: true });
      });
  });
}
