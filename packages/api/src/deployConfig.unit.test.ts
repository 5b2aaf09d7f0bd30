/** The shipped deploy/nginx.conf is the template rendered with its defaults (they cannot drift). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { DEFAULTS, RTMP_DEFAULTS, renderNginxConf, renderRtmpConf } from '../../../deploy/render-nginx.mjs';
import { envSchema } from './config/env.js';
import { HSTS, MEDIA_REFERRER_POLICY, SECURITY_HEADERS } from './http/securityHeaders.js';

const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy');

it('deploy/nginx.conf is deploy/nginx.conf.template rendered with the defaults', () => {
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8')).toBe(renderNginxConf());
  expect(renderNginxConf()).not.toMatch(/\{\{|\[\/?local-media\]|media_s3/);
});

it('deploy/nginx.s3.conf is the same template for media in an object store: no file sent from a disk', () => {
  const s3 = renderNginxConf({ mediaStore: 's3' });
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.s3.conf'), 'utf8')).toBe(s3);
  expect(s3).not.toMatch(/\{\{|\[\/?local-media\]|\b(root|alias)\s|sendfile|members_media_grants/);
  // Encrypted segments in a shared cache, keyed by the object (not by a viewer's presigned query).
  expect(s3).toMatch(/proxy_cache members_s3_segments;/);
  expect(s3).toMatch(/proxy_cache_key \$media_s3_host\/\$media_s3_path;/);
  expect(() => renderNginxConf({ mediaStore: 'nfs' as 's3' })).toThrow(/local or s3/);
});

it('deploy/nginx-rtmp.conf is deploy/nginx-rtmp.conf.template rendered with the defaults: the key checked by the API, then relayed to its ingest', () => {
  const rtmp = renderRtmpConf();
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx-rtmp.conf'), 'utf8')).toBe(rtmp);
  expect(rtmp).not.toMatch(/\{\{/);
  // OBS's port; the publish check (the API's route, with the secret in the URL); the relay to LIVE_RTMP_PORT; no playback.
  expect(rtmp).toMatch(/^\s+listen 1935;$/m);
  expect(rtmp).toMatch(/^\s+on_publish http:\/\/127\.0\.0\.1:8081\/api\/live\/ingest\/publish\?secret=REPLACE-WITH-LIVE_PUBLISH_SECRET;$/m);
  expect(rtmp).toMatch(/^\s+push rtmp:\/\/127\.0\.0\.1:1936\/live;$/m);
  expect(rtmp).toMatch(/^\s+deny play all;$/m);
  expect(rtmp).toContain('LIVE_RTMP_PORT=1936  LIVE_RTMP_HOST=127.0.0.1');
  const custom = renderRtmpConf({
    listen: '0.0.0.0:1935',
    publishUrl: 'http://10.0.0.2:8081/',
    ingest: '10.0.0.3:1940',
    publishSecret: 'a'.repeat(32),
  });
  expect(custom).toContain(`on_publish http://10.0.0.2:8081/api/live/ingest/publish?secret=${'a'.repeat(32)};`);
  expect(custom).toContain('push rtmp://10.0.0.3:1940/live;');
  // The secret goes in a URL as it is: nothing that would need escaping (or end the directive).
  expect(() => renderRtmpConf({ publishSecret: 'a b;c' })).toThrow(/publishSecret/);
  expect(RTMP_DEFAULTS.listen).toBe(String(envSchema.parse({}).LIVE_RTMP_PORT));
  // The API refuses at start a secret the URL would change.
  expect(() => envSchema.parse({ LIVE_PUBLISH_SECRET: `${'a'.repeat(32)}+/=` })).toThrow(/LIVE_PUBLISH_SECRET|letters, digits/);
  expect(envSchema.parse({ LIVE_PUBLISH_SECRET: 'a'.repeat(32) }).LIVE_PUBLISH_SECRET).toBe('a'.repeat(32));
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
  for (const [file, mediaLocations] of [
    ['nginx.conf.template', 2],
    ['nginx.compose.conf', 2],
    // One: the object store's internal location (the disk's two are left out).
    ['nginx.s3.conf', 1],
    ['nginx.compose.s3.conf', 1],
  ] as const) {
    const conf = fs.readFileSync(path.join(DEPLOY, file), 'utf8');
    const set = [...conf.matchAll(/^\s*#?\s*add_header\s+([\w-]+)\s+(.+?)(?:\s+always)?;/gm)].map(
      (m) => [m[1] as string, m[2] as string] as const,
    );
    for (const [name, value] of set) if (name in expected) expect([file, name, value]).toEqual([file, name, expected[name]]);
    // Every media location nginx sends from (signed-URL media and the X-Accel-Redirect target) sends all three.
    for (const name of ['X-Content-Type-Options', 'Cross-Origin-Resource-Policy', 'Referrer-Policy'])
      expect([file, name, set.filter(([n]) => n === name).length]).toEqual([file, name, mediaLocations]);
  }
});

/** The location block whose regular expression is the ticketed WebSockets' (the 1:1 chat's and a show's room). */
const SOCKET_LOCATION = /location ~ (\^\/api\/\S+\/socket\$) \{([\s\S]*?)\n {4}\}/;

it("the chat sockets' location repeats every header the server sets for the API (a location's proxy_set_header replaces them all)", () => {
  const conf = renderNginxConf();
  const serverLevel = [...conf.matchAll(/^ {4}proxy_set_header (\S+) (.+);$/gm)].map((m) => `${m[1]} ${m[2]}`);
  const socket = SOCKET_LOCATION.exec(conf)?.[2] ?? '';
  const inSocket = new Set([...socket.matchAll(/proxy_set_header (\S+) (.+);/g)].map((m) => `${m[1]} ${m[2]}`));
  expect(serverLevel.length).toBeGreaterThan(3);
  // Connection is the one the upgrade must change.
  expect(serverLevel.filter((h) => !h.startsWith('Connection ') && !inSocket.has(h))).toEqual([]);
  expect(inSocket).toContain('Upgrade $http_upgrade');
  expect(inSocket).toContain('Connection "upgrade"');
});

it("every shipped nginx configuration upgrades both ticketed WebSockets (the chat and a live show's room) and logs neither (the ticket is in the query string)", () => {
  for (const file of ['nginx.conf', 'nginx.s3.conf', 'nginx.compose.conf', 'nginx.compose.s3.conf']) {
    const conf = fs.readFileSync(path.join(DEPLOY, file), 'utf8');
    const [, pattern = '', block = ''] = SOCKET_LOCATION.exec(conf) ?? [];
    const socketPath = new RegExp(pattern);
    for (const p of ['/api/chat/socket', '/api/live/shows/0hXk3_a-9/chat/socket'])
      expect([file, p, socketPath.test(p)]).toEqual([file, p, true]);
    // Nothing else: the room's messages, another id's shape, a longer path.
    for (const p of ['/api/live/shows/x/chat', '/api/live/shows/a.b/chat/socket', '/api/chat/socket/x', '/api/chat/sockets'])
      expect([file, p, socketPath.test(p)]).toEqual([file, p, false]);
    expect([file, block]).toEqual([file, expect.stringContaining('access_log off;')]);
    expect([file, block]).toEqual([file, expect.stringContaining('proxy_set_header Upgrade $http_upgrade;')]);
  }
});
