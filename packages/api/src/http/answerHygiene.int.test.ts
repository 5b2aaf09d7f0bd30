/**
 * What an outside caller can read from or do to the answers themselves, on the production
 * configuration: anonymous /api/health says `{ status }` only (the details are an admin's);
 * answers with tokens or personal data carry `Cache-Control: no-store` while public thumbnails keep
 * their caching; an impossible date in an audit query is a 400, never rolled over into another day;
 * a malformed chunked body or `Transfer-Encoding: identity` is a client error in the log, not a
 * level-50 "unhandled error" with status 500.
 */
import fs from 'node:fs';
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { makeImage, makeMp4 } from '../media/media.testkit.js';
import { createTestUser } from '../streaming/viewers.testkit.js';

const PUBLIC_URL = 'https://videos.example.test';
const fixtures = tmpDir('answer-hygiene-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

/** Writes `request` as raw bytes and answers what came back before the server closed (or 2 s passed). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}

forEachStore('answer hygiene (production configuration)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  const log: { level: number; msg: string; path?: string; status?: number }[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => log.push(JSON.parse(line)) } as pino.DestinationStream);
    server = await startTestServer(kind, { env: { NODE_ENV: 'production', PUBLIC_URL, REQUIRE_ADMIN_2FA: 'false' }, logger });
    api = apiClient(server.url);
  }, 60_000);
  afterAll(() => server?.close());

  it('anonymous and member /api/health answer { status } only; an admin gets the details', async () => {
    const member = await createTestUser(server.ctx);
    for (const token of [undefined, member.token]) {
      const r = await api.get('/health', token);
      expect([r.status, r.body]).toEqual([200, { success: true, data: { status: 'ok' } }]);
    }
    const admin = await api.get('/health', await adminToken(server));
    expect(admin.status).toBe(200);
    expect(Object.keys(admin.body.data).sort()).toEqual([
      'headPosition',
      'media',
      'status',
      'store',
      'subscriberLag',
      'subscribers',
      'transcode',
    ]);
  });

  it('answers with tokens or personal data are no-store; a public thumbnail keeps its caching', async () => {
    const account = { email: `no-store-${kind}@example.test`, password: 'member-password-123' };
    const reg = await api.post('/auth/register', {
      ...account,
      firstName: 'No',
      lastName: 'Store',
      dateOfBirth: '1990-05-05',
      agreeToTerms: true,
    });
    expect(reg.status).toBe(201);
    expect(reg.headers.get('cache-control')).toBe('no-store');
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    expect([login.status, login.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0] as string);
    const csrf = cookies.find((c) => c.startsWith('csrf_token='))?.slice('csrf_token='.length) as string;
    const refresh = await fetch(`${server.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf },
    });
    expect([refresh.status, refresh.headers.get('cache-control')]).toEqual([200, 'no-store']);
    for (const path of ['/users/profile', '/users/approval-status', '/users/me/sessions']) {
      const r = await api.get(path, token);
      expect([path, r.status, r.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
    }
    const mfa = await api.post('/auth/mfa/verify', { mfaToken: 'not-a-token', code: '000000' });
    expect(mfa.headers.get('cache-control')).toBe('no-store');

    const admin = await createTestUser(server.ctx, { role: 'admin' });
    const thumb = await makeImage(fixtures, 'jpg');
    const up = await ingestVideoFile(server.ctx, {
      filePath: await makeMp4(fixtures, 1),
      thumbnailPath: thumb,
      title: 'Cached thumbnail',
      accessLevel: 'free',
      actorId: admin.id,
    });
    if (!up.ok) throw new Error(up.error.message);
    const image = await fetch(`${server.url}/api/videos/${up.videoId}/thumbnail`);
    expect([image.status, image.headers.get('cache-control')]).toEqual([200, 'public, max-age=300']);
  });

  it('an impossible date in the audit history is a 400, not another day', async () => {
    const admin = await adminToken(server);
    for (const q of ['from=2026-02-31', 'to=2026-02-30', 'from=2026-13-01', 'from=2026-01-01T24:00:00Z', 'from=March%203']) {
      const r = await fetch(`${server.url}/api/admin/audit/payments?${q}`, { headers: { authorization: `Bearer ${admin}` } });
      expect([q, r.status, ((await r.json()) as { error: string }).error]).toEqual([
        q,
        400,
        'from/to: must be dates (YYYY-MM-DD or ISO 8601)',
      ]);
    }
    const replay = await api.get('/admin/audit/replay?to=2026-02-31', admin);
    expect([replay.status, replay.body.error]).toEqual([
      400,
      'to: must be a log position or a date (YYYY-MM-DD or an ISO 8601 timestamp with a zone)',
    ]);
    const fine = await fetch(`${server.url}/api/admin/audit/payments?from=2024-02-29&to=2026-02-28`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(fine.status).toBe(200);
  });

  it('a malformed chunked body or Transfer-Encoding: identity is a 400 and a client error in the log, never level 50', async () => {
    const head = 'POST /api/auth/login HTTP/1.1\r\nHost: videos.example.test\r\nContent-Type: application/json\r\nConnection: close\r\n';
    const body = '{"email":"a@example.test","password":"x"}';
    const before = log.length;
    const answers = [
      await raw(server.port, `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`),
      await raw(server.port, `${head}Transfer-Encoding: identity\r\n\r\n${body}`),
    ];
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 400 /);
    // Each request's line is written once its answer is over (after any error line of its own).
    const logins = () => log.slice(before).filter((l) => l.msg === 'request' && l.path === '/api/auth/login');
    for (const hang = Date.now() + 30_000; logins().length < 2 && Date.now() < hang; ) await new Promise((r) => setTimeout(r, 20));
    expect(logins().map((l) => l.status)).toEqual([400, 400]);
    expect(log.filter((l) => l.level >= 50)).toEqual([]);
    expect(
      log
        .slice(before)
        .filter((l) => l.msg === 'request body unreadable')
        .map((l) => l.level),
    ).toEqual([30, 30]);
  });
});
