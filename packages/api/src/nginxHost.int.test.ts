/**
 * The shipped nginx (deploy/nginx.conf.template, rendered as deploy/nginx.conf is) in front of the
 * production entry point (`main.ts`, NODE_ENV=production, TRUST_PROXY=true), as an attacker reaches
 * it: a request for any other Host name gets no answer (444: nginx closes the connection), the
 * site's own name is served, and an `X-Forwarded-Host` the client sends reaches no mailed link (the
 * stream URLs' side: http/publicUrl.int.test.ts); both ticketed WebSockets (the 1:1 chat's and a live
 * show's room) are upgraded through to the API's ticket check, and their tickets never reach the
 * access log (issue 44).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConf, standaloneNginxConf } from '../../../deploy/render-nginx.mjs';
import { freePort } from '../../../scripts/freePort.mjs';
import { type ChildServer, launchServer, stopServer } from '../test/childServer.js';
import { type FreshStore, freshStore, TEST_ADMIN, tmpDir } from '../test/harness.js';
import { NGINX, nginxAvailable } from '../test/requirements.js';
import { startSmtpServer } from './mail/smtpServer.testkit.js';

/**
 * Writes `request` and answers every byte that came back before the peer closed (or 5 s passed),
 * and whether the connection was made at all: a refused connection also closes without an answer.
 */
function raw(port: number, request: string): Promise<{ connected: boolean; answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    let connected = false;
    const socket = net.connect(port, '127.0.0.1', () => {
      connected = true;
      socket.write(request);
    });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ connected, answer, closed: false });
    }, 5000);
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ connected, answer, closed: true });
    });
    socket.on('error', () => {});
  });
}

const get = (port: number, host: string, extra = '') =>
  raw(port, `GET /api/health HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`);

/** Quoted-printable soft breaks and escapes undone (nodemailer encodes long lines). */
const decodeQp = (s: string) =>
  s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

describe.runIf(nginxAvailable())('the shipped nginx in front of production: Host names', () => {
  let store: FreshStore;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let api: ChildServer;
  let nginx: ChildProcess;
  let prefix: string;
  let port: number;
  let site: string;

  beforeAll(async () => {
    store = await freshStore('sqlite');
    smtp = await startSmtpServer();
    port = await freePort();
    site = `http://127.0.0.1:${port}`;
    const apiPort = await freePort();
    api = await launchServer({
      ...store.env,
      NODE_ENV: 'production',
      PORT: String(apiPort),
      PUBLIC_URL: site,
      TRUST_PROXY: 'true',
      SMTP_URL: smtp.url,
      MFA_KEY_SECRET: 'nginx-host-test-mfa-key-0123456789abcdef0123',
      REQUIRE_ADMIN_2FA: 'false',
    });
    prefix = tmpDir('members-nginx-host-');
    fs.mkdirSync(path.join(prefix, 'tmp'));
    fs.chmodSync(prefix, 0o755);
    const conf = renderNginxConf({
      upstreams: [`127.0.0.1:${apiPort}`],
      listen: `127.0.0.1:${port}`,
      serverName: '127.0.0.1',
      mediaRoot: path.join(store.dataDir, 'media'),
      cacheDir: path.join(prefix, 'grants'),
      maxBody: '10m',
    });
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), standaloneNginxConf(prefix, conf));
    let out = '';
    nginx = spawn(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stdout?.on('data', (d) => (out += d));
    nginx.stderr?.on('data', (d) => (out += d));
    for (let i = 0; ; i++) {
      if (nginx.exitCode !== null || i > 100) throw new Error(`nginx did not start: ${out}`);
      if ((await get(port, '127.0.0.1')).answer.startsWith('HTTP/1.1 200')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    if (api) await stopServer(api);
    await smtp?.close();
    await store?.cleanup();
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  it('closes the connection without an answer for Host: attacker.example (and for no Host name it knows)', async () => {
    for (const host of ['attacker.example', `attacker.example:${port}`, 'localhost.attacker.example']) {
      const r = await get(port, host);
      expect({ host, ...r }).toEqual({ host, connected: true, answer: '', closed: true });
    }
    // An HTTP/1.0 request without Host is no name either.
    expect(await raw(port, 'GET /api/health HTTP/1.0\r\n\r\n')).toEqual({ connected: true, answer: '', closed: true });
  });

  it("serves the configured name, and a client's X-Forwarded-Host reaches no mailed link", async () => {
    const served = await get(port, `127.0.0.1:${port}`, 'X-Forwarded-Host: attacker.example\r\n');
    expect(served.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(served.answer).toContain('{"success":true,"data":{"status":"ok"}}');

    // A real account: the admin the server bootstrapped. The attacker asks for its reset through nginx.
    const body = JSON.stringify({ email: TEST_ADMIN.email });
    const reset = await raw(
      port,
      `POST /api/auth/reset-password HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Forwarded-Host: attacker.example\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(reset.answer).toMatch(/^HTTP\/1\.1 200 /);
    const until = Date.now() + 20_000;
    while (!smtp.received.some((m) => m.to.includes(TEST_ADMIN.email)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const mail = decodeQp(smtp.received.find((m) => m.to.includes(TEST_ADMIN.email))?.raw.toString('utf8') ?? '');
    expect(mail).toContain(`${site}/auth/forgot-password?token=`);
    expect(mail).not.toContain('attacker.example');
  });

  it('upgrades both ticketed WebSockets through to the ticket check, and keeps their tickets out of the access log', async () => {
    const log = () => fs.readFileSync(path.join(prefix, 'access.log'), 'utf8');
    for (const socketPath of ['/api/chat/socket', '/api/live/shows/0hXk3a9Qz/chat/socket']) {
      const ticket = randomBytes(32).toString('base64url');
      const r = await raw(
        port,
        `GET ${socketPath}?ticket=${ticket} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${site}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      // 401 (a ticket no one issued): the upgrade reached the API's check; without it the API answers 426.
      expect([socketPath, r.answer.split('\r\n')[0]]).toEqual([socketPath, 'HTTP/1.1 401 Unauthorized']);
      expect([socketPath, log().includes(ticket)]).toEqual([socketPath, false]);
    }
    // The log is on: any other request with a query string is in it.
    const probe = randomBytes(8).toString('hex');
    expect(
      (await raw(port, `GET /api/health?probe=${probe} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)).answer,
    ).toMatch(/^HTTP\/1\.1 200 /);
    expect(log()).toContain(probe);
  });
});
