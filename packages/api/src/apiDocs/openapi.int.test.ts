/**
 * The OpenAPI document against an independent validator and against the app itself:
 * 1. it is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator, the official
 *    3.1 JSON Schema of the OpenAPI Initiative);
 * 2. every mounted API route (`mountedApiRoutes`, read from Hono's own route list, as the
 *    robustness sweep does) is in it, with the method, and every documented operation is mounted;
 * 3. access: the document is for admins outside development (401 visitor, 403 member), open in
 *    development; the docs page and its scripts come from this server with their own CSP;
 * 4. it lints clean under Redocly's `recommended` ruleset (@redocly/cli, no config of ours):
 *    no error and no warning.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ERROR_CODE_LIST, ERROR_CODES } from '@members/ui/api/schemas';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { mountedApiRoutes } from '../../test/routeList.js';
import { APP_VERSION } from '../kernel/version.js';
import { createTestUser } from '../streaming/viewers.testkit.js';
import { DOCUMENTED_PATHS } from './document.js';

const toOpenApiPath = (apiPath: string) => {
  const path = apiPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
  return DOCUMENTED_PATHS[path] ?? path;
};

describe('OpenAPI document', () => {
  let server: TestServer;
  let admin: string;
  let doc: any;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    admin = await adminToken(server);
    const res = await apiClient(server.url).get('/openapi.json', admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.oai.openapi+json;version=3.1');
    doc = res.body;
  }, 60_000);
  afterAll(() => server?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it("names the project's licence (MIT, LICENSE) and release (package.json's version)", () => {
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.info.version).toBe(APP_VERSION);
  });

  it("lints clean under Redocly's recommended rules: no error, no warning", async () => {
    const dir = tmpDir('redocly-');
    try {
      const file = path.join(dir, 'openapi.json');
      fs.writeFileSync(file, JSON.stringify(doc));
      const redocly = path.resolve(import.meta.dirname, '../../../../node_modules/.bin/redocly');
      // Exits 1 on errors only; the JSON report has every problem with its severity. No config file is read (cwd is empty).
      const run = await promisify(execFile)(
        redocly,
        ['lint', file, '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('documents every mounted route, and nothing that is not mounted', () => {
    const mounted = mountedApiRoutes(server.ctx);
    expect(mounted.length).toBeGreaterThan(40);
    const missing = mounted
      .filter((r) => !doc.paths?.[toOpenApiPath(r.apiPath)]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    // A route without a `describe(...)` (packages/api/src/http/openapi.ts) next to its handler is missing here.
    expect(missing, 'mounted routes missing from the OpenAPI document: give each a describe({...})').toEqual([]);
    const mountedKeys = new Set(mounted.map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.apiPath)}`));
    const extra: string[] = [];
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(item)) {
        if (method === 'options' || method === 'head') continue; // not in the route list (OPTIONS is tus discovery, HEAD rides on GET)
        if (!mountedKeys.has(`${method} ${path}`)) extra.push(`${method} ${path}`);
      }
    }
    expect(extra).toEqual([]);
    const operations = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    console.log(
      `[openapi] ${mounted.length} mounted routes; the document: ${Object.keys(doc.paths).length} paths, ${operations} operations, ${JSON.stringify(doc).length} bytes`,
    );
  });

  it('gives every operation a summary, a tag, responses with content types, and the security it needs', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.summary) problems.push(`${where}: no summary`);
        if (!op.tags?.length) problems.push(`${where}: no tag`);
        if (!Array.isArray(op.security)) problems.push(`${where}: no security requirement`);
        if (path.startsWith('/admin/') && method !== 'options' && !op.security?.some((s: object) => 'bearerAuth' in s))
          problems.push(`${where}: admin route without the bearer scheme`);
        // (101: a WebSocket upgrade's success.)
        if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('2') || s === '101')) problems.push(`${where}: no success answer`);
      }
    }
    expect(problems).toEqual([]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('lists every error code: the envelope enumerates the catalogue and x-error-codes gives each its status and meaning', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.required).toEqual(expect.arrayContaining(['success', 'error', 'code']));
    expect(envelope.properties.code.enum).toEqual(ERROR_CODE_LIST);
    expect(doc['x-error-codes']).toEqual(ERROR_CODES);
  });

  it('answers sample refusals of every kind with a listed code and the status the document gives it', async () => {
    const api = apiClient(server.url);
    const member = await createTestUser(server.ctx, { approved: true });
    const samples: [string, Promise<{ status: number; body: any }>, string][] = [
      ['no such route', api.get('/nope'), 'route.not_found'],
      ['a visitor on a member route', api.get('/users/profile'), 'auth.required'],
      ['a forged token', api.get('/users/profile', 'not-a-token'), 'auth.session_expired'],
      ['a member on an admin route', api.get('/admin/stats', member.token), 'auth.admin_only'],
      ['a wrong password', api.post('/auth/login', { email: member.email, password: 'not-the-password' }), 'auth.invalid_credentials'],
      ['a body failing its schema', api.post('/auth/login', { email: 'not-an-email' }), 'validation.invalid_body'],
      ['a body that is not JSON', api.call('POST', '/auth/login', { raw: '{"email":' }), 'validation.malformed_json'],
      ['an unknown video', api.get('/videos/no-such-video/stream', member.token), 'video.not_found'],
      ['an unknown payment', api.post('/admin/payments/no-such-payment/verify', {}, admin), 'payment.not_found'],
    ];
    const listed = doc['x-error-codes'] as Record<string, { status: number }>;
    for (const [what, answer, code] of samples) {
      const { status, body } = await answer;
      expect({ what, code: body.code, status, error: typeof body.error }).toEqual({
        what,
        code,
        status: listed[code]?.status,
        error: 'string',
      });
      expect(doc.components.schemas.ErrorEnvelope.properties.code.enum).toContain(body.code);
    }
  });

  it('refuses a bad bearer token on a public route, as documented', async () => {
    const res = await fetch(`${server.url}/api/health`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(res.status).toBe(401);
    expect(doc.paths['/health'].get.responses['401']).toBeDefined();
  });

  it('is for admins outside development', async () => {
    const api = apiClient(server.url);
    expect((await api.get('/openapi.json')).status).toBe(401);
    const member = await createTestUser(server.ctx, { approved: true });
    expect((await api.get('/openapi.json', member.token)).status).toBe(403);
  });

  it('serves the reference UI from this server, under its own CSP', async () => {
    const page = await fetch(`${server.url}/api/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(src).not.toMatch(/^(https?:)?\/\//);
      const asset = await fetch(new URL(src as string, `${server.url}/api/docs`));
      expect(asset.status, src).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await fetch(`${server.url}/api/docs/..%2Fpackage.json`)).status).toBe(404);
  });

  it("documents nginx-rtmp's publish check: its form, the secret in the query, no bearer token, the 403", () => {
    const op = doc.paths['/live/ingest/publish'].post;
    expect(Object.keys(op.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(op.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual(['call', 'name']);
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'secret', in: 'query', required: true })]);
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '403', '413']));
    expect(op.description).toContain('LIVE_PUBLISH_SECRET');
  });
});

describe('OpenAPI document in development', () => {
  it('is open', async () => {
    const server = await startTestServer('sqlite', { env: { NODE_ENV: 'development' } });
    try {
      const res = await apiClient(server.url).get('/openapi.json');
      expect(res.status).toBe(200);
      expect((res.body as unknown as { openapi: string }).openapi).toBe('3.1.0');
    } finally {
      await server.close();
    }
  }, 60_000);
});
