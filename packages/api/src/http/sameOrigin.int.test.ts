/**
 * JSON only, same origin only (http/sameOrigin.ts), on the production configuration, as a cross-site
 * attacker's page would send it: a `text/plain` or form login from `Origin: https://evil.example`
 * signs nobody in and sets no cookie; a form, a multipart body or `text/plain` to a JSON route is 415;
 * any state-changing request from a foreign Origin or with `Sec-Fetch-Site: cross-site` is 403. The
 * site's own origin, and callers without Origin (curl, the desktop app's main process), still pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { CROSS_SITE_REFUSED, isSiteOrigin, JSON_ONLY } from './sameOrigin.js';

const PUBLIC_URL = 'https://videos.example.test';
const EVIL = 'https://evil.example';

describe('isSiteOrigin', () => {
  it("is the site's origin, loopback names of one machine alike, nothing else", () => {
    expect(isSiteOrigin(PUBLIC_URL, PUBLIC_URL)).toBe(true);
    expect(isSiteOrigin('https://videos.example.test:443', PUBLIC_URL)).toBe(true);
    expect(isSiteOrigin('http://127.0.0.1:8080', 'http://localhost:8080')).toBe(true);
    expect(isSiteOrigin('http://127.0.0.1:8081', 'http://localhost:8080')).toBe(false);
    expect(isSiteOrigin('http://videos.example.test', PUBLIC_URL)).toBe(false);
    expect(isSiteOrigin('https://evil.example', PUBLIC_URL)).toBe(false);
    expect(isSiteOrigin('https://videos.example.test.evil.example', PUBLIC_URL)).toBe(false);
    expect(isSiteOrigin('null', PUBLIC_URL)).toBe(false);
  });
});

forEachStore('JSON only, same origin only (production configuration)', (kind) => {
  let server: TestServer;
  const account = { email: `csrf-${kind}@example.test`, password: 'member-password-123' };

  const post = (path: string, headers: Record<string, string>, body: string) =>
    fetch(`${server.url}/api${path}`, { method: 'POST', headers, body });
  const login = (headers: Record<string, string>, body = JSON.stringify(account)) => post('/auth/login', headers, body);

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { NODE_ENV: 'production', PUBLIC_URL, REQUIRE_ADMIN_2FA: 'false' } });
    const registration = { ...account, firstName: 'Cross', lastName: 'Site', dateOfBirth: '1990-05-05', agreeToTerms: true };
    const reg = await post('/auth/register', { 'content-type': 'application/json' }, JSON.stringify(registration));
    expect(reg.status).toBe(201);
  }, 60_000);
  afterAll(() => server?.close());

  it('a text/plain login from a foreign page signs nobody in and sets no cookie', async () => {
    const attempts: Record<string, string>[] = [
      { 'content-type': 'text/plain;charset=UTF-8', origin: EVIL },
      { 'content-type': 'text/plain;charset=UTF-8' },
    ];
    for (const headers of attempts) {
      const res = await login(headers);
      expect(res.status === 403 || res.status === 415).toBe(true);
      expect(res.headers.getSetCookie()).toEqual([]);
      const body = (await res.json()) as { success: boolean; data?: unknown };
      expect(body.success).toBe(false);
      expect(body.data).toBeUndefined();
    }
  });

  it('an HTML form post (urlencoded or multipart) to a JSON route is refused: 403 from a foreign page, 415 by content type', async () => {
    const form = `email=${encodeURIComponent(account.email)}&password=${account.password}`;
    const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(await statusAndError(login({ ...urlencoded, origin: EVIL }, form))).toEqual([403, CROSS_SITE_REFUSED]);
    expect(await statusAndError(login(urlencoded, form))).toEqual([415, JSON_ONLY]);
    const multipart = new FormData();
    multipart.set('email', account.email);
    const res = await fetch(`${server.url}/api/auth/reset-password`, { method: 'POST', body: multipart });
    expect(await statusAndError(Promise.resolve(res))).toEqual([415, JSON_ONLY]);
    // The body a form sends as text/plain is no JSON route's either, even when it happens to parse as JSON.
    expect(
      await statusAndError(post('/auth/reset-password', { 'content-type': 'text/plain' }, JSON.stringify({ email: account.email }))),
    ).toEqual([415, JSON_ONLY]);
  });

  it('a JSON login or reset from a foreign Origin, or marked cross-site by the browser, is 403 with no cookie', async () => {
    const json = { 'content-type': 'application/json' };
    for (const headers of [
      { ...json, origin: EVIL },
      { ...json, origin: 'null' },
      { ...json, origin: 'http://videos.example.test' },
      { ...json, 'sec-fetch-site': 'cross-site' },
    ]) {
      const res = await login(headers);
      expect(await statusAndError(Promise.resolve(res))).toEqual([403, CROSS_SITE_REFUSED]);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await statusAndError(post('/auth/reset-password', headers, JSON.stringify({ email: account.email })))).toEqual([
        403,
        CROSS_SITE_REFUSED,
      ]);
    }
  });

  it("the site's own page and callers without Origin (curl, the desktop app) still sign in", async () => {
    const own: Record<string, string>[] = [
      { 'content-type': 'application/json', origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' },
      { 'content-type': 'application/json; charset=utf-8' },
    ];
    for (const headers of own) {
      const res = await login(headers);
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().length).toBe(2);
    }
    // A body-less POST with no content type (logout, refresh) is not a body of another type.
    expect((await fetch(`${server.url}/api/auth/logout`, { method: 'POST' })).status).toBe(200);
    // Reads are not state-changing: a foreign Origin on GET is answered as before.
    expect((await fetch(`${server.url}/api/site`, { headers: { origin: EVIL } })).status).toBe(200);
  });
});

async function statusAndError(res: Promise<Response>): Promise<[number, string]> {
  const r = await res;
  return [r.status, ((await r.json()) as { error: string }).error];
}
