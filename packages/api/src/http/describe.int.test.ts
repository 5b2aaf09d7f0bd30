import { afterAll, beforeAll, expect, it, describe as suite } from 'vitest';
import { z } from 'zod';
import { apiClient, startTestServer, type TestServer } from '../../test/harness.js';
import type { AppModule } from '../kernel/module.js';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit.js';
import { createApp } from '../wiring/app.js';
import { modules } from '../wiring/modules.js';
import { callerOf, userOf } from './auth.js';
import { HttpError, ok } from './envelope.js';
import { type Credential, describe, grantOf } from './openapi.js';
import { idParams } from './validate.js';

const noteSchema = z.object({ text: z.string().trim().min(1, 'must not be empty').max(20, 'must be at most 20 characters') });

/** A signature over the path's id (`sig=ok-{id}`): refused with the signed links' message, granting the id. */
const probeSignature: Credential<{ signedId: string }, z.ZodObject<{ sig: z.ZodOptional<z.ZodString> }>> = {
  who: 'A probe signature',
  query: z.object({ sig: z.string().optional() }),
  required: ['sig'],
  verify(_c, { param, query }) {
    if (query.sig !== `ok-${String(param.id)}`)
      throw new HttpError('stream.link_invalid', 'This video link is not valid. Please open the video again.');
    return { signedId: String(param.id) };
  },
};

/** A token of its own in a header, checked before anything else. */
const probeToken: Credential<string> = {
  who: 'A probe token',
  verify(c) {
    if (c.req.header('x-probe-token') !== 'good') throw new HttpError('runner.token_invalid', 'Invalid or revoked runner token');
    return 'good';
  },
};

const probeModule: AppModule = {
  name: 'probe',
  routes(api) {
    api.post(
      '/probe/signed/:id',
      describe({
        summary: 'probe',
        tags: ['probe'],
        access: { signedUrl: probeSignature },
        params: idParams,
        invalidParams: { code: 'video.not_found', message: 'Video not found' },
        body: noteSchema,
        ok: { 200: z.object({}) },
      }),
      (c) => ok(c, { grant: grantOf(c, probeSignature), text: c.req.valid('json').text }),
    );
    api.post(
      '/probe/token/:id',
      describe({ summary: 'probe', tags: ['probe'], access: { runner: probeToken }, params: idParams, body: noteSchema }),
      (c) => ok(c, { token: grantOf(c, probeToken), id: c.req.valid('param').id }),
    );
    api.post(
      '/probe/owned/:id',
      describe({
        summary: 'probe',
        tags: ['probe'],
        access: 'member',
        params: idParams,
        owner: { owns: async (_c, param, caller) => param.id === `of-${caller.id}`, refusal: (c) => c.json({ mine: false }, 404) },
        body: noteSchema,
      }),
      (c) => ok(c, { id: c.req.valid('param').id }),
    );
    api.post(
      '/probe/:id/new',
      describe({ summary: 'probe', tags: ['probe'], access: 'member', params: idParams, body: noteSchema, ok: { 200: z.object({}) } }),
      function newStyle(c) {
        return ok(c, { id: c.req.valid('param').id, text: c.req.valid('json').text, user: userOf(c).id, caller: callerOf(c) });
      },
    );
    api.post(
      '/probe/admin',
      describe({ summary: 'probe', tags: ['probe'], access: 'admin', permission: 'videos', body: noteSchema, ok: { 200: z.object({}) } }),
      (c) => ok(c, { text: c.req.valid('json').text }),
    );
  },
};

suite('describe(): access, then the input, then the handler', () => {
  let server: TestServer;
  let app: ReturnType<typeof createApp>;
  let member: TestViewer;
  let rejected: TestViewer;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { NODE_ENV: 'production' } });
    app = createApp(server.ctx, [...modules, probeModule]);
    member = await createTestUser(server.ctx);
    rejected = await createTestUser(server.ctx, { rejected: true, approved: false });
  }, 60_000);
  afterAll(() => server?.close());

  const call = async (path: string, body: string, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.request(`${server.url}/api${path}`, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('a visitor with a bad body and a bad id gets 401, never the 400', async () => {
    expect(await call('/probe/a%20b/new', '{"text":')).toEqual({
      status: 401,
      body: { success: false, error: 'Please log in to continue', code: 'auth.required' },
    });
  });

  it('a rejected member is refused (403) before the body is read; a member is not an admin', async () => {
    expect(await call('/probe/abc/new', 'not json', rejected.token)).toMatchObject({ status: 403, body: { code: 'auth.not_approved' } });
    expect(await call('/probe/admin', '{}', member.token)).toMatchObject({ status: 403, body: { code: 'auth.admin_only' } });
  });

  it('an admin route must name its staff permission, and only an admin route may (issue 42)', () => {
    expect(() => describe({ summary: 'unnamed', tags: ['probe'], access: 'admin' })).toThrow(
      'describe: the admin route "unnamed" names no staff permission',
    );
    expect(() => describe({ summary: 'misplaced', tags: ['probe'], access: 'member', permission: 'videos' })).toThrow(
      'describe: "misplaced" names a staff permission but is not an admin route',
    );
  });

  it('then the route’s own schemas: params, the JSON, each field, with the same 400 envelope', async () => {
    expect(await call('/probe/a%20b/new', '{"text":"hi"}', member.token)).toMatchObject({
      status: 400,
      body: { success: false, error: 'id: Invalid id', code: 'validation.invalid_body' },
    });
    expect(await call('/probe/abc/new', '{"text":', member.token)).toMatchObject({
      status: 400,
      body: { error: 'Request body must be valid JSON', code: 'validation.malformed_json' },
    });
    expect(await call('/probe/abc/new', '{"text":"  "}', member.token)).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'text: must not be empty',
        code: 'validation.invalid_body',
        details: [{ path: 'text', message: 'must not be empty' }],
      },
    });
  });

  it('the handler reads the validated input, the admitted account and the caller', async () => {
    const answer = await call('/probe/abc/new', '{"text":"  hello "}', member.token);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: 'abc', text: 'hello', user: member.id, caller: { actorId: member.id } });
    expect((answer.body.data as { caller: { requestId: string } }).caller.requestId).toEqual(expect.any(String));
  });

  it('a signed URL: the path it signs first ("Video not found"), then its signature, then the body; the handler reads its grant', async () => {
    expect(await call('/probe/signed/a%20b?sig=x', '{"text":')).toMatchObject({ status: 404, body: { code: 'video.not_found' } });
    // A missing or forged signature field is the scheme's refusal, never a 400; it comes before the body is read.
    expect(await call('/probe/signed/abc', '{"text":')).toMatchObject({ status: 403, body: { code: 'stream.link_invalid' } });
    expect(await call('/probe/signed/abc?sig=ok-abd', '{"text":"hi"}')).toMatchObject({ status: 403 });
    expect(await call('/probe/signed/abc?sig=ok-abc', '{"text":')).toMatchObject({
      status: 400,
      body: { code: 'validation.malformed_json' },
    });
    expect(await call('/probe/signed/abc?sig=ok-abc', '{"text":"hi"}')).toMatchObject({
      status: 200,
      body: { data: { grant: { signedId: 'abc' }, text: 'hi' } },
    });
  });

  it('a token credential is checked before the path and the body; an owner after the path, before the body', async () => {
    const token = (path: string, body: string, value?: string) =>
      app.request(`${server.url}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(value ? { 'x-probe-token': value } : {}) },
        body,
      });
    expect((await token('/probe/token/a%20b', '{"text":', 'bad')).status).toBe(401);
    expect((await token('/probe/token/a%20b', '{"text":"hi"}', 'good')).status).toBe(400);
    expect(await (await token('/probe/token/abc', '{"text":"hi"}', 'good')).json()).toMatchObject({ data: { token: 'good', id: 'abc' } });

    expect(await call('/probe/owned/of-someone', '{"text":', member.token)).toEqual({ status: 404, body: { mine: false } });
    expect(await call(`/probe/owned/of-${member.id}`, '{"text":', member.token)).toMatchObject({ status: 400 });
    expect(await call(`/probe/owned/of-${member.id}`, '{"text":"hi"}', member.token)).toMatchObject({ status: 200 });
  });

  it('the real app answers the same way (a visitor rejecting a payment with a bad body: 401)', async () => {
    const api = apiClient(server.url);
    expect((await api.call('POST', '/admin/payments/x/reject', { raw: '{"reason":' })).status).toBe(401);
  });
});
