/**
 * Security headers on every kind of answer of the real server: the web app's shell and assets, API
 * JSON (success, 404, 413, 401), and HSTS only when PUBLIC_URL is https. The browser test
 * (web/e2e/member-journey, admin-and-session) proves the policy breaks nothing (zero violations).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { CONTENT_SECURITY_POLICY, HSTS, SECURITY_HEADERS } from './securityHeaders.js';

let plain: TestServer;
let https: TestServer;
let webDist: string;

beforeAll(async () => {
  // A minimal built web app (the real bundle's shape), so the static and shell routes are mounted.
  webDist = tmpDir('web-dist-');
  fs.mkdirSync(path.join(webDist, 'assets'));
  fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  fs.writeFileSync(path.join(webDist, 'assets', 'app.js'), 'console.log(1)');
  plain = await startTestServer('sqlite', { env: { WEB_DIST: webDist } });
  https = await startTestServer('sqlite', { env: { WEB_DIST: webDist, PUBLIC_URL: 'https://members.example.test' } });
});
afterAll(async () => {
  await plain?.close();
  await https?.close();
  fs.rmSync(webDist, { recursive: true, force: true });
});

const csp = (h: Headers) =>
  Object.fromEntries((h.get('content-security-policy') ?? '').split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));

describe('security headers', () => {
  it('every kind of answer carries the fixed headers and the CSP, never HSTS over plain http', async () => {
    const answers = [
      await fetch(`${plain.url}/`),
      await fetch(`${plain.url}/videos/some-id`),
      await fetch(`${plain.url}/assets/app.js`),
      await fetch(`${plain.url}/api/videos`),
      await fetch(`${plain.url}/api/health`),
      await fetch(`${plain.url}/api/no-such-route`),
      await fetch(`${plain.url}/api/admin/stats`),
      await fetch(`${plain.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(2 * 1024 * 1024),
      }),
      await fetch(`${plain.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 404, 401, 413, 400]);
    for (const res of answers) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect([res.url, name, res.headers.get(name)]).toEqual([res.url, name, value]);
      const policy = csp(res.headers);
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['style-src']).toEqual(["'self'"]);
      expect(policy['object-src']).toEqual(["'none'"]);
      expect(policy['base-uri']).toEqual(["'none'"]);
      expect(policy['frame-ancestors']).toEqual(["'none'"]);
      expect(policy['img-src']).toEqual([...(CONTENT_SECURITY_POLICY.imgSrc ?? [])]);
      expect(policy['upgrade-insecure-requests']).toBeUndefined();
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(res.headers.get('x-powered-by')).toBeNull();
      await res.arrayBuffer();
    }
  });

  it('HSTS and upgrade-insecure-requests when PUBLIC_URL is https', async () => {
    for (const p of ['/', '/api/videos', '/api/no-such-route']) {
      const res = await fetch(`${https.url}${p}`);
      await res.arrayBuffer();
      expect(res.headers.get('strict-transport-security')).toBe(HSTS);
      expect(csp(res.headers)).toHaveProperty('upgrade-insecure-requests');
    }
  });
});
