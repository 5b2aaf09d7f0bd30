/**
 * Robustness over the whole API surface, on both stores. The routes come from the app itself
 * (`mountedApiRoutes`, Hono's `app.routes`), so a route added later is swept automatically:
 * 1. guards: every /api/admin route is 401 without a token and 403 for an approved member, every
 *    member-only route (everything outside a small public allow-list) is 401 without a token, and
 *    none of those refusals appends to the event log;
 * 2. bad input: every mutating route, with hostile ids, callers and bodies, answers a 4xx envelope
 *    (never a 5xx, never a write); every GET route survives bogus query parameters; every route
 *    survives hostile headers; the signed media URL survives hostile ranges and tampering;
 * 3. hostile uploads (multipart and tus): 4xx envelopes, no event, no staged file left;
 * 4. unknown API paths are a 404 envelope; non-API paths are the web app or plain text, never a 500.
 * Each sweep collects every problem and asserts the list is empty, so one run reports them all.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestVideoFile } from '../src/catalog/ingest.js';
import { signAccessToken } from '../src/http/auth.js';
import { STAFF_READ_RECORDED } from '../src/identity/staffReads.js';
import { scheduleShow } from '../src/live/shows.service.js';
import { makeMp4 } from '../src/media/media.testkit.js';
import { createTestUser, type TestViewer } from '../src/streaming/viewers.testkit.js';
import { createApp, JSON_BODY_LIMIT } from '../src/wiring/app.js';
import { modules } from '../src/wiring/modules.js';
import { adminToken } from './adminToken.js';
import { forEachStore, startTestServer, type TestServer, tmpDir } from './harness.js';
import { WEB_DIST, webBuildAvailable } from './requirements.js';
import { fillParams, hasParams, type MountedRoute, mountedApiRoutes, templateMatches } from './routeList.js';

const fixtures = tmpDir('robustness-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const SWEEP_TIMEOUT = 600_000;
const MAX_UPLOAD = 3_000_000;

/** Routes anyone may call without a token. Everything else outside /api/admin is member-only. */
const PUBLIC_ROUTES = new Set([
  'GET /api/health',
  'GET /api/site',
  'GET /api/geo/check',
  'GET /api/subscriptions/plans',
  'GET /api/videos',
  'GET /api/videos/:id',
  'GET /api/videos/:id/thumbnail',
  // Protected by its signed, expiring URL instead of a bearer token (a <video> element sends none).
  'GET /api/media/videos/:id',
  // The API reference viewer (static HTML and scripts, no data): the document it loads is admin-only.
  'GET /api/docs',
  'GET /api/docs/:asset',
  // The chat's WebSocket: its credential is the single-use ticket, redeemed only on an upgrade (a plain GET is a 426).
  'GET /api/chat/socket',
  // The HLS stream, likewise: a signed grant (playlists, segments, previews) or a short-lived key token.
  'GET /api/hls/:id/master.m3u8',
  'GET /api/hls/:id/:rendition{[0-9]+p}/index.m3u8',
  'GET /api/hls/:id/segments/:segment{[0-9]+p-seg_[0-9]+b?\\.ts}',
  'GET /api/hls/:id/previews.vtt',
  'GET /api/hls/:id/captions/:language/index.m3u8',
  'GET /api/hls/:id/captions/:language/captions.vtt',
  'GET /api/hls/:id/sprites/:sprite{sprite-[0-9][0-9][0-9]\\.jpg}',
  'GET /api/hls/:id/key',
  // A live show's HLS (issue 43), likewise; and its chat room's WebSocket, the chat's ticket (a plain GET is a 426).
  'GET /api/live/hls/:id/master.m3u8',
  'GET /api/live/hls/:id/:rendition{[0-9]+p}/index.m3u8',
  'GET /api/live/hls/:id/segments/:segment{[0-9]+p-seg_[0-9]+\\.ts}',
  'GET /api/live/hls/:id/key',
  'GET /api/live/shows/:id/chat/socket',
  // nginx-rtmp's publish check (issue 43 item 2): its credential is LIVE_PUBLISH_SECRET in the query (403 without it).
  'POST /api/live/ingest/publish',
]);
const key = (r: Pick<MountedRoute, 'method' | 'path'>) => `${r.method} ${r.path}`;
const isAdminRoute = (r: MountedRoute) => r.path.startsWith('/api/admin/');
const isPublicRoute = (r: MountedRoute) => r.path.startsWith('/api/auth/') || PUBLIC_ROUTES.has(key(r));

/** Mutating routes that may legitimately answer 2xx to some of the sweep's bodies (then: no 5xx, a valid envelope). */
const MAY_SUCCEED = new Map([
  ['POST /api/auth/logout', 'reads no body: logging out without a session is a harmless 200'],
  ['PUT /api/users/profile', '{} (or no body) is a valid, empty profile update'],
  ['POST /api/auth/mfa/enroll', 'reads no body: (re)starting the second-factor enrolment is a valid answer to any body'],
  ['POST /api/auth/passkeys/registration', 'reads no body: starting a passkey ceremony is a valid answer to any body'],
  ['POST /api/auth/passkeys/login/options', 'reads no body: starting a passkey sign-in is a valid answer to any body'],
  ['POST /api/auth/passkeys/reauthentication', 'reads no body: starting a passkey confirmation is a valid answer to any body'],
  ['POST /api/chat/read', "reads no body: marking the team's replies read is a valid answer to any body"],
  ['POST /api/chat/ticket', 'reads no body: a WebSocket ticket is a valid answer to any body'],
]);

/** Every field name any route reads, set to hostile values by the wrong-type bodies. */
const FIELDS = [
  'email',
  'password',
  'firstName',
  'lastName',
  'dateOfBirth',
  'agreeToTerms',
  'token',
  'planType',
  'planId',
  'paymentMethodId',
  'userId',
  'btcAmount',
  'transactionHash',
  'subscriptionId',
  'reason',
  'duration',
  'title',
  'description',
  'model',
  'accessLevel',
  'tags',
  'categories',
  'published',
  'fileName',
  'size',
  'metadata',
  'thumbnail',
  'role',
  'status',
  'approved',
  'currentPassword',
  'newPassword',
  'newEmail',
];
const every = (value: unknown) => JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, value])));
const LONG = 'x'.repeat(10_000);
const utf8 = (text: string) => Buffer.from(text, 'utf8');

interface BodyCase {
  name: string;
  /** Encoded once: a string body is encoded again at every request, and the sweep sends these thousands of times. */
  body?: Buffer;
  contentType?: string;
}

const BODIES: BodyCase[] = [
  { name: 'no body' },
  { name: 'invalid JSON', body: utf8('{"email": "a@example.test", ') },
  { name: 'JSON array', body: utf8('[{"email":"a@example.test","planType":"annual"}]') },
  { name: 'JSON string', body: utf8('"hello"') },
  { name: 'JSON number', body: utf8('42') },
  { name: 'JSON null', body: utf8('null') },
  { name: '{}', body: utf8('{}') },
  { name: 'every field a number', body: utf8(every(-1)) },
  { name: 'every field a huge float', body: utf8(every(1.7e308)) },
  { name: 'every field a nested object', body: utf8(every({ $gt: '', nested: { deeper: [1, { x: null }] } })) },
  { name: 'every field an array', body: utf8(every([1, 'two', null, { three: 3 }])) },
  { name: 'every field null', body: utf8(every(null)) },
  { name: 'every field true', body: utf8(every(true)) },
  { name: 'every field an empty string', body: utf8(every('')) },
  { name: 'every field a 10,000-char string', body: utf8(every(LONG)) },
  { name: 'every field a 10,000-char non-ASCII string', body: utf8(every('é🎬\u0000'.repeat(2500))) },
  {
    name: '__proto__ / constructor keys',
    body: utf8('{"__proto__":{"role":"admin","approved":true},"constructor":{"prototype":{"x":1}}}'),
  },
  { name: 'nesting 5,000 deep', body: utf8(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`) },
  { name: 'JSON object sent as text/plain', body: utf8(every('7')), contentType: 'text/plain' },
  { name: 'form-encoded', body: utf8('email=a%40example.test&planType=annual'), contentType: 'application/x-www-form-urlencoded' },
  { name: `a body over ${JSON_BODY_LIMIT} bytes`, body: utf8(JSON.stringify({ title: 'x', padding: 'x'.repeat(JSON_BODY_LIMIT + 1024) })) },
];

const QUERIES = [
  '',
  'page=-1',
  'page=abc',
  'page=1e400',
  'pageSize=100000',
  'pageSize=0',
  'pageSize=-5',
  'sort=evil',
  'sort=',
  'from=not-a-date',
  'to=not-a-date',
  'from=2026-13-45&to=0000-00-00',
  'to=-1',
  'to=99999999999999999999999',
  'to=1.5',
  'format=evil',
  'format=csv&from=yesterday',
  'format=ndjson&to=2026-02-30',
  'days=-5',
  'days=1e9',
  'days=abc',
  `q=${'x'.repeat(5000)}`,
  'q=%27%20OR%201%3D1--',
  'accessLevel=evil',
  'u=x&e=-1&s=zz',
  'e=99999999999999999999&s=',
  'page=1&page=2&sort=newest&sort=popular',
  '%ZZ=%E0%A4%A',
  'page=-1&pageSize=100000&sort=evil&from=not-a-date&to=not-a-date&format=evil&days=-5',
];

interface Answer {
  status: number;
  type: string;
  text: string;
  /** The Location header (tus creation). */
  location?: string;
}

/** What is wrong with an answer, or undefined. `fail`: must be a 4xx failure envelope; `any`: any non-5xx envelope. */
function envelopeProblem(a: Answer, expectation: 'fail' | 'any'): string | undefined {
  if (a.status >= 500) return `status ${a.status}`;
  if (!a.type.startsWith('application/json')) return `status ${a.status} with content-type "${a.type}"`;
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `status ${a.status} with a body that is not JSON`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not an envelope object';
  const env = body as { success?: unknown; error?: unknown };
  if (typeof env.success !== 'boolean') return 'no boolean `success`';
  if (env.success === false && (typeof env.error !== 'string' || env.error.trim() === '')) return 'a failure without an error text';
  if (env.success !== a.status < 400) return `success=${env.success} with status ${a.status}`;
  if (expectation === 'fail' && (a.status < 400 || a.status >= 500)) return `expected a 4xx, got ${a.status}`;
  return undefined;
}

/** fetch's own failure with its cause (a reset socket, a refused connection). */
const failure = (err: unknown) => {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return `request failed: ${e.message}${e.cause ? ` (${e.cause.code ?? ''} ${e.cause.message ?? ''})` : ''}`;
};

const short = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}…` : text);

forEachStore('robustness', (kind) => {
  let server: TestServer;
  let routes: MountedRoute[];
  let admin: string;
  let member: TestViewer;
  let rejected: TestViewer;
  let videoId: string;
  /** A scheduled free live show: the show routes' "Live show not found" rightly comes before "Please log in". */
  let showId: string;
  let requests = 0;
  const statuses = new Map<number, number>();

  /**
   * One raw request, counted; never throws on a non-JSON answer. Over node:http with the path sent
   * byte for byte (fetch would normalise `%2e%2e` away) and a fresh connection per request, so an
   * early answer to an unread body (a 401 or 413 before a 1 MB upload is read) cannot leave a
   * half-drained keep-alive socket for the next request: each failure belongs to its own request.
   */
  function send(
    method: string,
    p: string,
    opts: { token?: string; body?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    requests += 1;
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(opts.body));
    }
    return new Promise<Answer>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: p, method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            // A download (`Content-Disposition: attachment`, e.g. the member's data export) is a file, not an answer envelope.
            type: res.headers['content-disposition']?.startsWith('attachment') ? 'attachment' : String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
            location: res.headers.location,
          }),
        );
      });
      // A write error after the answer arrived (the server closed once it had refused the body) is not a failure.
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  const head = () => server.ctx.store.headPosition();
  const label = (method: string, p: string) => `${method} ${p.length > 120 ? `${p.slice(0, 120)}…` : p}`;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      // The per-IP auth limit would turn the sweep of the auth routes into 429s: lift it so validation is what answers.
      env: {
        AUTH_REQUESTS_PER_IP_PER_MINUTE: '100000000',
        ACCESS_TOKEN_TTL_SECONDS: String(30 * 24 * 3600),
        // Small enough that the hostile uploads can go over it.
        MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
        // Forwarded headers are read (client IP for geo and rate limits, public origin): sweep them too.
        TRUST_PROXY: 'true',
      },
    });
    routes = mountedApiRoutes(server.ctx);
    admin = await adminToken(server);
    member = await createTestUser(server.ctx);
    rejected = await createTestUser(server.ctx, { approved: false, rejected: true });
    const copy = path.join(fixtures, `${kind}-free.mp4`);
    fs.copyFileSync(await makeMp4(fixtures, 2), copy);
    const ingested = await ingestVideoFile(server.ctx, { filePath: copy, title: 'Robustness video', accessLevel: 'free', actorId: 'test' });
    if (!ingested.ok) throw new Error(ingested.error.message);
    videoId = ingested.videoId;
    const show = await scheduleShow(
      server.ctx,
      { title: 'Robustness show', accessLevel: 'free', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      { actorId: 'test' },
    );
    if (!show.ok) throw new Error(show.error.message);
    showId = show.value.show.id;
  });
  afterAll(async () => {
    const tally = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
    console.log(
      `[robustness ${kind}] ${requests} HTTP requests over ${routes?.length ?? 0} mounted API routes; statuses ${tally.join(' ')}`,
    );
    await server?.close();
  });

  /** Ids for path parameters: hostile ones everywhere, plus the real video for the public /videos routes. */
  const hostileIds = () => [
    randomUUID(),
    encodeURIComponent('../../etc/passwd'),
    'a'.repeat(5000),
    encodeURIComponent("1' OR '1'='1"),
    encodeURIComponent('%00\u0000é'),
  ];

  describe('the route inventory', () => {
    it('comes from the mounted app and holds every module’s routes', () => {
      const keys = routes.map(key);
      for (const expected of [
        'GET /api/health',
        'GET /api/site',
        'POST /api/auth/login',
        'PUT /api/users/profile',
        'POST /api/payments/submit-bitcoin-payment',
        'GET /api/videos/:id/stream',
        'GET /api/media/videos/:id',
        'PATCH /api/admin/uploads/:id',
        'GET /api/geo/check',
        'POST /api/admin/users/:id/approve',
        'GET /api/admin/audit/verify',
        'POST /api/admin/leaks/examinations',
        'GET /api/admin/leaks/examinations',
        'GET /api/admin/leaks/examinations/:id',
      ])
        expect(keys).toContain(expected);
      expect(new Set(keys).size).toBe(keys.length);
      // The allow-list names only routes that exist (a renamed route must not silently become "public").
      for (const k of PUBLIC_ROUTES) expect(keys).toContain(k);
      for (const k of MAY_SUCCEED.keys()) expect(keys).toContain(k);
    });
  });

  describe('guards', () => {
    it('every /api/admin route: 401 without a token, 403 for an approved member (and for a member whose token claims admin), no event appended', async () => {
      const problems: string[] = [];
      const adminRoutes = routes.filter(isAdminRoute);
      expect(adminRoutes.length).toBeGreaterThan(15);
      const forgedRole = await signAccessToken(server.ctx, { id: member.id, role: 'admin' });
      const ghostAdmin = await signAccessToken(server.ctx, { id: randomUUID(), role: 'admin' });
      for (const r of adminRoutes) {
        const p = fillParams(r.path, randomUUID());
        const before = await head();
        for (const [who, token, status] of [
          ['no token', undefined, 401],
          ['approved member', member.token, 403],
          ['member token claiming admin', forgedRole, 403],
          ['admin token of a user that does not exist', ghostAdmin, 401],
          ['rejected member', rejected.token, 403],
        ] as const) {
          const a = await send(r.method, p, { token });
          const problem = envelopeProblem(a, 'fail') ?? (a.status !== status ? `expected ${status}, got ${a.status}` : undefined);
          if (problem) problems.push(`${label(r.method, p)} [${who}]: ${problem} — ${short(a.text)}`);
        }
        // Hono answers HEAD with the GET handler: the guard must hold there too.
        if (r.method === 'GET')
          for (const [who, token, status] of [
            ['HEAD, no token', undefined, 401],
            ['HEAD, approved member', member.token, 403],
          ] as const) {
            const a = await send('HEAD', p, { token });
            if (a.status !== status) problems.push(`${label('HEAD', p)} [${who}]: expected ${status}, got ${a.status}`);
          }
        if ((await head()) !== before) problems.push(`${key(r)}: refused calls appended to the event log`);
      }
      expect(problems).toEqual([]);
    });

    it('every member-only route answers 401 without a token (and 403 for a rejected member, outside their data rights), no event appended', async () => {
      const problems: string[] = [];
      // The runner API takes runner tokens only (its own guard: transcode/remoteRunner.int.test.ts and the matrix).
      const memberRoutes = routes.filter((r) => !isAdminRoute(r) && !isPublicRoute(r) && !r.path.startsWith('/api/runners/'));
      // A rejected member's restricted session (docs/members.md): their data rights, profile and status.
      const restricted = new Set([
        'GET /api/users/me/export',
        'DELETE /api/users/me',
        'GET /api/users/profile',
        'GET /api/users/approval-status',
      ]);
      expect(memberRoutes.map(key)).toEqual(
        expect.arrayContaining([
          'GET /api/users/profile',
          'PUT /api/users/profile',
          'GET /api/videos/:id/stream',
          'POST /api/videos/:id/view',
          'POST /api/payments/submit-bitcoin-payment',
          'POST /api/subscriptions/create',
          'GET /api/subscriptions/current',
        ]),
      );
      for (const r of memberRoutes) {
        // A real, published, free video: "Video not found" rightly comes before "Please log in".
        const p = fillParams(r.path, r.path.startsWith('/api/live/shows/') ? showId : videoId);
        const before = await head();
        for (const [who, token, status] of [
          ['no token', undefined, 401],
          ['rejected member', rejected.token, 403],
        ] as const) {
          if (token && restricted.has(key(r))) continue; // checked in the authorization matrix
          const a = await send(r.method, p, { token });
          const problem = envelopeProblem(a, 'fail') ?? (a.status !== status ? `expected ${status}, got ${a.status}` : undefined);
          if (problem) problems.push(`${label(r.method, p)} [${who}]: ${problem} — ${short(a.text)}`);
        }
        if ((await head()) !== before) problems.push(`${key(r)}: refused calls appended to the event log`);
      }
      expect(problems).toEqual([]);
    });

    it('a malformed, forged or garbage bearer token is a 401 envelope on every route, public ones included', async () => {
      const problems: string[] = [];
      const forged = `${member.token.slice(0, -4)}AAAA`;
      for (const r of routes) {
        const p = fillParams(r.path, videoId);
        for (const authorization of ['Bearer garbage', `Bearer ${forged}`, 'Basic YWRtaW46YWRtaW4=', `Bearer ${'x'.repeat(5000)}`]) {
          const a = await send(r.method, p, { headers: { authorization } });
          const problem = envelopeProblem(a, 'fail') ?? (a.status !== 401 ? `expected 401, got ${a.status}` : undefined);
          if (problem) problems.push(`${label(r.method, p)} [${authorization.slice(0, 20)}]: ${problem} — ${short(a.text)}`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('bad input', () => {
    it(
      'every POST/PUT/PATCH/DELETE route × hostile ids × {admin, member, visitor} × hostile bodies: a 4xx envelope, never a 5xx or a write',
      async () => {
        const problems: string[] = [];
        const mutating = routes.filter((r) => r.method !== 'GET');
        expect(mutating.length).toBeGreaterThan(20);
        const callers = [
          ['admin', admin],
          ['member', member.token],
          ['visitor', undefined],
        ] as const;
        for (const r of mutating) {
          const maySucceed = MAY_SUCCEED.has(key(r));
          // Real ids only where a success cannot destroy the fixtures (never on admin routes).
          const ids = hasParams(r.path) ? [...hostileIds(), ...(isAdminRoute(r) ? [] : [videoId])] : [''];
          const before = await head();
          for (const id of ids) {
            const p = fillParams(r.path, id);
            for (const [who, token] of callers)
              for (const b of BODIES) {
                let a: Answer;
                try {
                  a = await send(r.method, p, { token, body: b.body, contentType: b.contentType });
                } catch (err) {
                  problems.push(`${label(r.method, p)} [${who}, ${b.name}]: ${failure(err)}`);
                  continue;
                }
                const problem = envelopeProblem(a, maySucceed ? 'any' : 'fail');
                if (problem) problems.push(`${label(r.method, p)} [${who}, ${b.name}]: ${problem} — ${short(a.text)}`);
              }
          }
          if (!maySucceed && (await head()) !== before) problems.push(`${key(r)}: refused calls appended to the event log`);
        }
        expect(problems).toEqual([]);
      },
      SWEEP_TIMEOUT,
    );

    it(
      'every GET route × ids × {admin, member, visitor} × bogus query parameters: never a 5xx, JSON answers are envelopes, nothing written',
      async () => {
        const problems: string[] = [];
        const gets = routes.filter((r) => r.method === 'GET');
        const callers = [
          ['admin', admin],
          ['member', member.token],
          ['visitor', undefined],
        ] as const;
        const before = await head();
        for (const r of gets) {
          const ids = hasParams(r.path) ? [...hostileIds(), videoId] : [''];
          for (const id of ids)
            for (const [who, token] of callers)
              for (const q of QUERIES) {
                const p = `${fillParams(r.path, id)}${q ? `?${q}` : ''}`;
                let a: Answer;
                try {
                  a = await send('GET', p, { token });
                } catch (err) {
                  problems.push(`${label('GET', p)} [${who}]: ${failure(err)}`);
                  continue;
                }
                // Thumbnails, media bytes, CSV/NDJSON reports and downloads are not envelopes; every JSON answer is.
                const problem =
                  a.status >= 500
                    ? `status ${a.status}`
                    : a.type.startsWith('application/json') || a.status >= 400
                      ? envelopeProblem(a, 'any')
                      : undefined;
                if (problem) problems.push(`${label('GET', p)} [${who}]: ${problem} — ${short(a.text)}`);
              }
        }
        // Staff reads of personal data are audited by design (issue 42): the admin's GETs of a member's
        // page, a member search or a report append StaffReadRecorded, and nothing else may be written.
        const written = (await server.ctx.store.readAll({ after: before })).map((e) => e.type);
        const other = written.filter((t) => t !== STAFF_READ_RECORDED);
        if (other.length > 0) problems.push(`GET requests appended to the event log: ${[...new Set(other)].join(', ')}`);
        expect(problems).toEqual([]);
      },
      SWEEP_TIMEOUT,
    );
    it(
      'every route × {admin, member, visitor} × hostile headers (forwarded IPs and hosts, cookies, ranges, request ids): never a 5xx',
      async () => {
        const problems: string[] = [];
        const HEADERS: Record<string, string>[] = [
          { 'x-forwarded-for': 'not-an-ip' },
          { 'x-forwarded-for': '999.999.999.999' },
          { 'x-forwarded-for': ':::::ffff:zz' },
          { 'x-forwarded-for': '::ffff:' },
          { 'x-forwarded-for': `${'1.'.repeat(2000)}1` },
          { 'x-forwarded-for': ', , ,' },
          { 'x-forwarded-host': 'evil.example:99999/../x', 'x-forwarded-proto': 'javascript' },
          { 'x-request-id': 'x'.repeat(5000) },
          { 'x-request-id': '../../\u00e9\u00ff' },
          { cookie: 'refresh_token=%E0%A4%A; csrf_token=%ZZ', 'x-csrf-token': '%ZZ' },
          { cookie: `refresh_token=${'x'.repeat(4000)}; csrf_token=a`, 'x-csrf-token': 'a' },
          { cookie: 'refresh_token=; csrf_token=', 'x-csrf-token': '' },
          { cookie: '=;;=;refresh_token' },
          { range: 'bytes=99999999999999999999-', 'if-range': 'not a date' },
          { range: 'bytes=-0', 'if-none-match': '*' },
          { range: 'bytes=5-1,0-0', 'if-modified-since': 'garbage' },
          { accept: 'text/csv', 'accept-encoding': 'gzip;q=x, br;q=-1' },
          { 'content-type': 'application/json; charset=utf-16' },
          { authorization: 'Bearer' },
        ];
        const callers = [
          ['admin', admin],
          ['member', member.token],
          ['visitor', undefined],
        ] as const;
        for (const r of routes) {
          // The real video only where a success cannot destroy it (DELETE /admin/videos/:id would).
          const p = fillParams(r.path, isAdminRoute(r) ? randomUUID() : videoId);
          for (const headers of HEADERS)
            for (const [who, token] of callers) {
              let a: Answer;
              try {
                a = await send(r.method, p, {
                  token: headers.authorization ? undefined : token,
                  headers,
                  body: r.method === 'GET' ? undefined : '{}',
                });
              } catch (err) {
                problems.push(`${label(r.method, p)} [${who}, ${Object.keys(headers).join('+')}]: ${failure(err)}`);
                continue;
              }
              const problem =
                a.status >= 500
                  ? `status ${a.status}`
                  : a.type.startsWith('application/json') || a.status >= 400
                    ? envelopeProblem(a, 'any')
                    : undefined;
              if (problem)
                problems.push(`${label(r.method, p)} [${who}, ${JSON.stringify(headers).slice(0, 80)}]: ${problem} — ${short(a.text)}`);
            }
        }
        expect(problems).toEqual([]);
      },
      SWEEP_TIMEOUT,
    );

    it('the signed media URL under hostile Range / If-Range / If-None-Match headers: 200, 206, 304 or 416, never a 5xx', async () => {
      // The original (an admin's progressive file: the video is not transcoded here, so a member has none).
      const stream = await send('GET', `/api/videos/${videoId}/stream`, { token: admin });
      expect(stream.status).toBe(200);
      const url = new URL(JSON.parse(stream.text).data.streamUrl as string, 'http://site.invalid');
      const media = `${url.pathname}${url.search}`;
      const problems: string[] = [];
      for (const range of [
        'bytes=0-0',
        'bytes=-1',
        'bytes=-0',
        'bytes=0-',
        'bytes=99999999999999999999-',
        'bytes=0-99999999999999999999',
        'bytes=-99999999999999999999',
        'bytes=5-1',
        'bytes=a-b',
        'bytes=0-1,2-3',
        'bits=0-1',
        'bytes=',
        `bytes=${'9'.repeat(5000)}-`,
      ])
        for (const extra of [
          {},
          { 'if-range': 'garbage' },
          { 'if-range': 'W/"x"' },
          { 'if-range': new Date(0).toUTCString() },
          { 'if-none-match': '*, "x"' },
        ] as Record<string, string>[]) {
          const a = await send('GET', media, { headers: { range, ...extra } });
          if (![200, 206, 304, 416].includes(a.status))
            problems.push(`Range ${range.slice(0, 40)} ${JSON.stringify(extra)}: ${a.status} ${short(a.text)}`);
        }
      // The signature is bound to the id and the viewer: tampering is a 403 envelope, not a 5xx.
      for (const tampered of [
        media.replace(/s=[^&]+/, 's=AAAA'),
        media.replace(/e=\d+/, 'e=99999999999999999999'),
        media.replace(/e=\d+/, 'e=-1'),
        media.replace(/u=[^&]+/, `u=${'x'.repeat(5000)}`),
        media.replace(videoId, randomUUID()),
        `${url.pathname}?u=&e=&s=`,
        `${url.pathname}?u=%E0%A4%A&e=%ZZ&s=%00`,
      ]) {
        const a = await send('GET', tampered);
        const problem =
          envelopeProblem(a, 'fail') ?? (a.status !== 403 && a.status !== 404 ? `expected 403/404, got ${a.status}` : undefined);
        if (problem) problems.push(`${tampered.slice(0, 100)}: ${problem} — ${short(a.text)}`);
      }
      expect(problems).toEqual([]);
    });
  });

  describe('hostile uploads (admin)', () => {
    const incoming = () => {
      const dir = path.join(server.store.dataDir, 'media', 'incoming');
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    };
    const BOUNDARY = 'robustness-boundary-7d3f';
    interface Part {
      name: string;
      filename?: string;
      type?: string;
      data: string | Buffer;
    }
    const multipart = (parts: Part[], close = true) =>
      Buffer.concat([
        ...parts.flatMap((part) => [
          Buffer.from(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${
              part.filename === undefined ? '' : `; filename="${part.filename}"`
            }\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
          ),
          Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
          Buffer.from('\r\n'),
        ]),
        Buffer.from(close ? `--${BOUNDARY}--\r\n` : ''),
      ]);
    const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
    const junk = (n: number) => Buffer.alloc(n, 0x5a);

    it('multipart uploads that are malformed, truncated, not media or too large: a 4xx envelope, no event, no staged file left', async () => {
      const cases: [string, string | Buffer, string][] = [
        ['multipart without a boundary', 'garbage', 'multipart/form-data'],
        ['an empty boundary', '', 'multipart/form-data; boundary='],
        ['garbage under a boundary', 'this is not multipart at all', MULTIPART],
        ['no parts at all', `--${BOUNDARY}--\r\n`, MULTIPART],
        [
          'a truncated body',
          multipart(
            [
              { name: 'title', data: 'Cut' },
              { name: 'video', filename: 'a.mp4', type: 'video/mp4', data: junk(4096) },
            ],
            false,
          ).subarray(0, 3000),
          MULTIPART,
        ],
        ['a title and no video', multipart([{ name: 'title', data: 'No video' }]), MULTIPART],
        ['a video and no title', multipart([{ name: 'video', filename: 'a.mp4', type: 'video/mp4', data: junk(2048) }]), MULTIPART],
        [
          'an empty video part',
          multipart([
            { name: 'title', data: 'Empty' },
            { name: 'video', filename: 'a.mp4', type: 'video/mp4', data: '' },
          ]),
          MULTIPART,
        ],
        [
          'a video that is not media',
          multipart([
            { name: 'title', data: 'Text' },
            { name: 'video', filename: 'a.mp4', type: 'video/mp4', data: 'hello, not a video' },
          ]),
          MULTIPART,
        ],
        [
          'a traversal file name',
          multipart([
            { name: 'title', data: 'Traversal' },
            { name: 'video', filename: '../../../../etc/passwd', type: 'video/mp4', data: junk(8192) },
          ]),
          MULTIPART,
        ],
        [
          'a thumbnail that is not an image',
          multipart([
            { name: 'title', data: 'Thumb' },
            { name: 'video', filename: 'a.mp4', type: 'video/mp4', data: junk(1024) },
            { name: 'thumbnail', filename: 't.jpg', type: 'image/jpeg', data: 'not an image' },
          ]),
          MULTIPART,
        ],
        [
          'a bad access level',
          multipart([
            { name: 'title', data: 'Level' },
            { name: 'accessLevel', data: 'evil' },
            { name: 'video', filename: 'a.mp4', data: junk(1024) },
          ]),
          MULTIPART,
        ],
        [
          'a bad duration',
          multipart([
            { name: 'title', data: 'Duration' },
            { name: 'duration', data: '99:99:99:99' },
            { name: 'video', filename: 'a.mp4', data: junk(1024) },
          ]),
          MULTIPART,
        ],
        [
          'a 100 KB title',
          multipart([
            { name: 'title', data: 'x'.repeat(100_000) },
            { name: 'video', filename: 'a.mp4', data: junk(1024) },
          ]),
          MULTIPART,
        ],
        ['60 parts', multipart(Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, data: 'v' }))), MULTIPART],
        [
          'a video over MAX_UPLOAD_BYTES',
          multipart([
            { name: 'title', data: 'Huge' },
            { name: 'video', filename: 'a.mp4', type: 'video/mp4', data: junk(MAX_UPLOAD + 4096) },
          ]),
          MULTIPART,
        ],
        ['a JSON body', every('x'), 'application/json'],
      ];
      const problems: string[] = [];
      const before = await head();
      const staged = new Set(incoming());
      // Each case a few times: a staged file left behind by a race (a write stream still opening) shows up rarely.
      for (const [name, body, contentType] of cases)
        for (let round = 0; round < 5; round++) {
          const a = await send('POST', '/api/admin/upload-video', { token: admin, body, contentType });
          const problem = envelopeProblem(a, 'fail');
          if (problem) problems.push(`${name}: ${problem} — ${short(a.text)}`);
          const left = incoming().filter((f) => !staged.has(f));
          if (left.length) problems.push(`${name}: left staged files ${left.join(', ')}`);
          for (const f of left) staged.add(f);
        }
      expect(problems).toEqual([]);
      expect(await head()).toBe(before);
    });

    it('tus uploads: hostile creation headers, metadata and PATCH headers are 4xx envelopes, the protocol holds, no event appended', async () => {
      const before = await head();
      const problems: string[] = [];
      const expectFail = async (what: string, a: Promise<Answer>, status?: number) => {
        const answer = await a;
        const problem =
          envelopeProblem(answer, 'fail') ?? (status && answer.status !== status ? `expected ${status}, got ${answer.status}` : undefined);
        if (problem) problems.push(`${what}: ${problem} — ${short(answer.text)}`);
      };
      const b64 = (v: string) => Buffer.from(v).toString('base64');
      const meta = (m: Record<string, string>) =>
        Object.entries(m)
          .map(([k, v]) => `${k} ${b64(v)}`)
          .join(',');
      const validMeta = meta({ filename: 'clip.mp4', title: 'Hostile upload' });
      const tusHeaders = { 'tus-resumable': '1.0.0' };
      const create = (headers: Record<string, string>) =>
        send('POST', '/api/admin/uploads', { token: admin, headers: { ...tusHeaders, 'upload-metadata': validMeta, ...headers } });
      for (const [what, headers, status] of [
        ['no Tus-Resumable', { 'tus-resumable': '', 'upload-length': '1000' }, 412],
        // tus 1.0: an unsupported version is 412 (with Tus-Version), a wrong PATCH content type 415 (uploads/tusProtocol.ts).
        ['Tus-Resumable 0.2.2', { 'tus-resumable': '0.2.2', 'upload-length': '1000' }, 412],
        ['no Upload-Length', {}, 400],
        ['Upload-Length -1', { 'upload-length': '-1' }, 400],
        ['Upload-Length 1.5', { 'upload-length': '1.5' }, 400],
        ['Upload-Length abc', { 'upload-length': 'abc' }, 400],
        ['Upload-Length 1e300', { 'upload-length': '1e300' }, 400],
        ['Upload-Length over MAX_UPLOAD_BYTES', { 'upload-length': String(MAX_UPLOAD + 1) }, 413],
        ['Upload-Length 0 (nothing to ingest)', { 'upload-length': '0' }, 400],
        ['both Upload-Length and Upload-Defer-Length', { 'upload-length': '10', 'upload-defer-length': '1' }, 400],
        ['no metadata', { 'upload-length': '1000', 'upload-metadata': '' }, 400],
        ['metadata that is not base64', { 'upload-length': '1000', 'upload-metadata': 'title !!!,filename ***' }, 400],
        ['an empty title', { 'upload-length': '1000', 'upload-metadata': meta({ filename: 'a.mp4', title: '' }) }, 400],
        ['no file name', { 'upload-length': '1000', 'upload-metadata': meta({ title: 't' }) }, 400],
        [
          'a bad access level',
          { 'upload-length': '1000', 'upload-metadata': meta({ filename: 'a.mp4', title: 't', accessLevel: 'evil' }) },
          400,
        ],
        [
          'a title over the limit',
          { 'upload-length': '1000', 'upload-metadata': meta({ filename: 'a.mp4', title: 'x'.repeat(1001) }) },
          400,
        ],
        [
          'a bad thumbnail time',
          { 'upload-length': '1000', 'upload-metadata': meta({ filename: 'a.mp4', title: 't', thumbnailAtSeconds: '-1' }) },
          400,
        ],
      ] as const)
        await expectFail(`create with ${what}`, create(headers), status);
      const tusDir = path.join(server.store.dataDir, 'uploads', 'tus');
      const stored = () => (fs.existsSync(tusDir) ? fs.readdirSync(tusDir).length : 0);
      if (stored() !== 0) problems.push(`refused creations left ${stored()} files in the upload area`);

      const created = await create({ 'upload-length': '1000' });
      expect(created.status).toBe(201);
      const at = new URL(created.location ?? '', 'http://x').pathname;
      const chunk = (bytes: Buffer, offset: string | undefined, contentType = 'application/offset+octet-stream', extra = {}) =>
        send('PATCH', at, {
          token: admin,
          body: bytes,
          contentType,
          headers: { ...tusHeaders, ...(offset === undefined ? {} : { 'upload-offset': offset }), ...extra },
        });
      await expectFail('PATCH as JSON', chunk(junk(10), '0', 'application/json'), 415);
      await expectFail('PATCH as text/plain', chunk(junk(10), '0', 'text/plain'), 415);
      await expectFail('PATCH without Tus-Resumable', chunk(junk(10), '0', undefined, { 'tus-resumable': '' }), 412);
      await expectFail('PATCH without Upload-Offset', chunk(junk(10), undefined), 403);
      for (const offset of ['-1', 'abc', '1e400', '9007199254740993', ' ', '0x0', '0e0', '+0', '0.0'])
        await expectFail(`PATCH with Upload-Offset "${offset}"`, chunk(junk(10), offset), 400);
      await expectFail('PATCH at the wrong offset', chunk(junk(10), '5'), 409);
      await expectFail('PATCH past the declared size', chunk(junk(2000), '0'), 413);
      // Half, then the rest: the bytes are not a video, so ingestion refuses them and nothing stays.
      const half = await chunk(junk(500), '0');
      if (half.status !== 204) problems.push(`the first half: ${half.status} ${short(half.text)}`);
      await expectFail('the last chunk of a file that is not a video', chunk(junk(500), '500'), 400);
      if (stored() !== 0) problems.push(`a refused file left ${stored()} files in the upload area`);
      await expectFail('PATCH on a refused upload', chunk(junk(10), '1000'), 404);
      await expectFail('DELETE of a refused upload', send('DELETE', at, { token: admin, headers: tusHeaders }), 404);
      // A terminated one: gone from then on.
      const second = await create({ 'upload-length': '1000' });
      const secondAt = new URL(second.location ?? '', 'http://x').pathname;
      const terminated = await send('DELETE', secondAt, { token: admin, headers: tusHeaders });
      if (terminated.status !== 204) problems.push(`DELETE of an open upload: ${terminated.status} ${short(terminated.text)}`);
      await expectFail(
        'PATCH on a terminated upload',
        send('PATCH', secondAt, {
          token: admin,
          body: junk(10),
          contentType: 'application/offset+octet-stream',
          headers: { ...tusHeaders, 'upload-offset': '0' },
        }),
        404,
      );
      expect(problems).toEqual([]);
      expect(stored()).toBe(0);
      expect(await head()).toBe(before);
    });
  });

  describe('unknown paths', () => {
    it('unknown /api paths and wrong methods on known paths answer a 404 envelope', async () => {
      const problems: string[] = [];
      const unknown = [
        '/api/nope',
        '/api/admin/nope',
        '/api/admin/users/x/promote',
        '/api/videos/x/y/z',
        '/api/auth',
        '/api/auth/nope',
        '/api/',
        '/api/users',
        '/api/..%2f..%2fetc%2fpasswd',
        `/api/videos/${'a'.repeat(5000)}/x`,
        '/api/health/extra',
        '/api/%E0%A4%A',
      ];
      const checks: [string, string][] = [];
      for (const p of unknown) for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) checks.push([m, p]);
      // Wrong methods on mounted paths, derived from the inventory.
      for (const r of routes) {
        const p = fillParams(r.path, randomUUID());
        for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
          if (!routes.some((other) => other.method === m && templateMatches(other.path, p))) checks.push([m, p]);
      }
      for (const [m, p] of checks)
        for (const [who, token] of [
          ['admin', admin],
          ['visitor', undefined],
        ] as const) {
          const a = await send(m, p, { token, body: m === 'GET' ? undefined : '{}' });
          const problem = envelopeProblem(a, 'fail') ?? (a.status !== 404 ? `expected 404, got ${a.status}` : undefined);
          if (problem) problems.push(`${label(m, p)} [${who}]: ${problem} — ${short(a.text)}`);
        }
      expect(checks.length).toBeGreaterThan(60);
      expect(problems).toEqual([]);
    });

    const WEB_PATHS = [
      '/',
      '/videos/123',
      '/admin',
      '/login',
      '/does/not/exist',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2f..%2fpackage.json',
      `/videos/${'a'.repeat(5000)}`,
      '/%E0%A4%A',
      '/apix',
    ];

    it('non-API paths on the server without a web build: plain text, never a 500', async () => {
      const problems: string[] = [];
      for (const p of WEB_PATHS)
        for (const m of ['GET', 'POST', 'DELETE']) {
          const a = await send(m, p, { body: m === 'GET' ? undefined : '{}' });
          if (a.status >= 500 || !a.type.startsWith('text/')) problems.push(`${label(m, p)}: ${a.status} ${a.type} — ${short(a.text)}`);
        }
      expect(problems).toEqual([]);
    });

    it.runIf(webBuildAvailable())(
      'non-API paths with the web build: the app shell for client routes, never a 500 and never a file outside the build',
      async () => {
        const app = createApp(server.ctx, modules, { webDist: WEB_DIST });
        const shell = fs.readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
        const problems: string[] = [];
        for (const p of WEB_PATHS) {
          requests += 1;
          const res = await app.request(p);
          const text = await res.text();
          if (res.status >= 500) problems.push(`GET ${p.slice(0, 80)}: ${res.status}`);
          if (text.includes('"packageManager"') || text.includes('root:x:'))
            problems.push(`GET ${p.slice(0, 80)}: served a file outside the build`);
        }
        for (const p of ['/videos/123', '/admin', '/login', '/does/not/exist']) {
          requests += 1;
          const res = await app.request(p);
          expect(res.status, p).toBe(200);
          expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
          expect(await res.text(), p).toBe(shell);
        }
        // The API still wins over the shell under /api.
        requests += 1;
        const api404 = await app.request('/api/nope');
        expect(api404.status).toBe(404);
        expect(await api404.json()).toEqual({ success: false, error: 'No API route GET /api/nope', code: 'route.not_found' });
        expect(problems).toEqual([]);
      },
    );
  });
});
