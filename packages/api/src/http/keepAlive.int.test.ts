/**
 * Answers sent before the request body was read (413, 401/403 on uploads, 429) through one
 * keep-alive client, exactly as the bug was reproduced: Node's own `fetch` (undici, which keeps
 * connections alive and reuses them) looping requests whose bodies alternate one huge (0.6–6 MB,
 * or past the 8 MB drain bound for uploads) and two small. Every request must get an answer with
 * the expected status; before `http/unreadBody.ts` one request in six got none ("other side
 * closed").
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { signAccessToken } from './auth.js';
import { DRAIN_MAX_BYTES } from './unreadBody.js';

const MB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 2 * MB;

interface Outcome {
  lost: string[];
  statuses: Record<number, number>;
}

/** `n` requests in order on the shared keep-alive dispatcher; request i is huge when i % 3 === 0. */
async function loop(n: number, send: (huge: boolean, i: number) => Promise<Response>): Promise<Outcome> {
  const out: Outcome = { lost: [], statuses: {} };
  for (let i = 0; i < n; i++) {
    try {
      const res = await send(i % 3 === 0, i);
      await res.arrayBuffer();
      out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      out.lost.push(`request ${i}: ${cause?.code ?? ''} ${cause?.message ?? String(err)}`);
    }
  }
  return out;
}

const between = (min: number, max: number) => randomInt(Math.round(min), Math.round(max));

function multipart(videoBytes: number): { body: Buffer; type: string } {
  const boundary = `----keepalive${randomInt(1e9)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nKeep-alive\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="video"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, Buffer.alloc(videoBytes, 7), tail]), type: `multipart/form-data; boundary=${boundary}` };
}

let server: TestServer;
let limited: TestServer;
let admin: string;
let member: string;

beforeAll(async () => {
  server = await startTestServer('sqlite', {
    env: {
      AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000000',
      LOGIN_FAILURES_PER_ACCOUNT: '1000000',
      LOGIN_FAILURES_PER_ADDRESS: '1000000',
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
    },
  });
  limited = await startTestServer('sqlite', { env: { AUTH_REQUESTS_PER_IP_PER_MINUTE: '2' } });
  admin = (await apiClient(server.url).post<{ token: string }>('/auth/login', TEST_ADMIN)).body.data?.token as string;
  await server.ctx.db.run(
    `INSERT INTO users (id, email, email_lower, first_name, last_name, date_of_birth, password_hash, role, status, approved, created_at)
     VALUES ('ka-member', 'ka@example.test', 'ka@example.test', 'K', 'A', '1990-01-01', 'x', 'member', 'approved', 1, ?)`,
    [new Date().toISOString()],
  );
  member = await signAccessToken(server.ctx, { id: 'ka-member', role: 'member' });
});
afterAll(async () => {
  await server?.close();
  await limited?.close();
});

describe('early answers on a keep-alive connection', () => {
  it('answers without a body to read (GET) or with the body read keep the connection open', async () => {
    const get = await fetch(`${server.url}/api/videos`);
    await get.arrayBuffer();
    expect(get.headers.get('connection')).toBe('keep-alive');
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.test', password: 'wrong-password' }),
    });
    await login.arrayBuffer();
    expect([login.status, login.headers.get('connection')]).toEqual([401, 'keep-alive']);
    // Refused before the body was read, but small enough to drain: still kept open.
    const huge = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * MB),
    });
    await huge.arrayBuffer();
    expect([huge.status, huge.headers.get('connection')]).toEqual([413, 'keep-alive']);
    // Past the drain bound: told, and closed cleanly.
    const past = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(DRAIN_MAX_BYTES + MB),
    });
    await past.arrayBuffer();
    expect([past.status, past.headers.get('connection')]).toEqual([413, 'close']);
  });

  it('413 from POST /api/auth/login: bodies of 0.6–6 MB alternating with two small logins', async () => {
    const out = await loop(150, (huge) =>
      fetch(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.test', password: huge ? 'x'.repeat(between(1.05 * MB, 6 * MB)) : 'wrong-password' }),
      }),
    );
    expect(out.lost).toEqual([]);
    expect(out.statuses).toEqual({ 401: 100, 413: 50 });
  });

  it('429 from the per-IP limit, answered before the login body is read', async () => {
    const out = await loop(60, (huge) =>
      fetch(`${limited.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'nobody@example.test',
          password: huge ? 'x'.repeat(between(0.6 * MB, 0.99 * MB)) : 'wrong-password',
        }),
      }),
    );
    expect(out.lost).toEqual([]);
    expect(out.statuses[429]).toBeGreaterThanOrEqual(57);
  });

  it('401 and 403 on tus PATCH /api/admin/uploads/:id, huge chunks below and above the drain bound', async () => {
    const created = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin}`,
        'tus-resumable': '1.0.0',
        'upload-length': String(MAX_UPLOAD_BYTES),
        'upload-metadata': ['filename v.mp4', 'title Keep-alive']
          .map((kv) => kv.replace(/ (.*)/, (_m, v: string) => ` ${Buffer.from(v).toString('base64')}`))
          .join(','),
      },
    });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location') as string, server.url).toString();
    const out = await loop(60, (huge, i) =>
      fetch(url, {
        method: 'PATCH',
        headers: {
          'tus-resumable': '1.0.0',
          'upload-offset': '0',
          'content-type': 'application/offset+octet-stream',
          ...(i % 2 ? { authorization: `Bearer ${member}` } : {}),
        },
        body: Buffer.alloc(huge ? between(0.6 * MB, DRAIN_MAX_BYTES + 16 * MB) : 10, 1),
      }),
    );
    expect(out.lost).toEqual([]);
    expect(out.statuses).toEqual({ 401: 30, 403: 30 });
  });

  it('401, 403 and 413 on the multipart POST /api/admin/upload-video', async () => {
    const out = await loop(90, (huge, i) => {
      const { body, type } = multipart(huge ? between(0.6 * MB, DRAIN_MAX_BYTES + 16 * MB) : 10);
      const who = [undefined, member, admin][Math.floor(i / 3) % 3];
      return fetch(`${server.url}/api/admin/upload-video`, {
        method: 'POST',
        headers: { 'content-type': type, ...(who ? { authorization: `Bearer ${who}` } : {}) },
        body,
      });
    });
    expect(out.lost).toEqual([]);
    // Anonymous 401, member 403; the admin's small bodies reach the ingest (400: no real video) and
    // huge ones are refused as too large (413: declared, or the part over its limit).
    expect(out.statuses[401]).toBe(30);
    expect(out.statuses[403]).toBe(30);
    expect((out.statuses[400] ?? 0) + (out.statuses[413] ?? 0)).toBe(30);
    expect(out.statuses[413]).toBeGreaterThan(0);
  });
});
