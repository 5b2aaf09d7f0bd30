/** The shipped deploy/nginx.conf is the template rendered with its defaults (they cannot drift). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { DEFAULTS, renderNginxConf } from '../../../deploy/render-nginx.mjs';
import { envSchema } from './config/env.js';
import { HSTS, MEDIA_REFERRER_POLICY, SECURITY_HEADERS } from './http/securityHeaders.js';

const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy');

it('deploy/nginx.conf is deploy/nginx.conf.template rendered with the defaults', () => {
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8')).toBe(renderNginxConf());
  expect(renderNginxConf()).not.toMatch(/\{\{/);
});

it("matches the API's defaults: upload limit and media prefix", () => {
  const env = envSchema.parse({});
  expect(DEFAULTS.maxBody).toBe(`${env.MAX_UPLOAD_BYTES / 1024 ** 3}g`);
  expect(DEFAULTS.mediaPrefix).toBe(env.MEDIA_ACCEL_PREFIX);
});

it("nginx's own answers (the media it sends) carry the app's security headers, with the same values", () => {
  const expected: Record<string, string> = {
    'X-Content-Type-Options': SECURITY_HEADERS['X-Content-Type-Options'],
    'Cross-Origin-Resource-Policy': SECURITY_HEADERS['Cross-Origin-Resource-Policy'],
    // The media route's own, stricter value (http/securityHeaders.ts keeps a route's header).
    'Referrer-Policy': MEDIA_REFERRER_POLICY,
    'Strict-Transport-Security': `"${HSTS}"`,
  };
  for (const file of ['nginx.conf.template', 'nginx.compose.conf']) {
    const conf = fs.readFileSync(path.join(DEPLOY, file), 'utf8');
    const set = [...conf.matchAll(/^\s*#?\s*add_header\s+([\w-]+)\s+(.+?)(?:\s+always)?;/gm)].map(
      (m) => [m[1] as string, m[2] as string] as const,
    );
    for (const [name, value] of set) if (name in expected) expect([file, name, value]).toEqual([file, name, expected[name]]);
    // Both media locations (signed-URL media and the X-Accel-Redirect target) send all three.
    for (const name of ['X-Content-Type-Options', 'Cross-Origin-Resource-Policy', 'Referrer-Policy'])
      expect([file, name, set.filter(([n]) => n === name).length]).toEqual([file, name, 2]);
  }
});
