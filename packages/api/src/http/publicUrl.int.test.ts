/**
 * Absolute URLs from configuration only, on the production configuration (NODE_ENV=production,
 * TRUST_PROXY=true, an https PUBLIC_URL, mail over SMTP), written as the attacker's requests: a
 * reset or sign-up with `Host: attacker.example` (or `X-Forwarded-Host: attacker.example`) mails a
 * link to PUBLIC_URL, the stream URLs are same-origin paths whatever Host the request named, and
 * cookies' Secure flag and HSTS come from PUBLIC_URL, not from how the request arrived (plain http).
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { startSmtpServer } from '../mail/smtpServer.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';
import { createTestUser } from '../streaming/viewers.testkit.js';

const PUBLIC_URL = 'https://videos.example.test';
const ATTACKER = 'attacker.example';
const fixtures = tmpDir('public-url-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A request as an attacker sends it: any Host, any forwarded headers (fetch would not let us set Host). */
function send(server: TestServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path: `/api${path}`,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const HOSTILE: Record<string, Record<string, string>> = {
  'Host: attacker.example': { host: ATTACKER },
  'X-Forwarded-Host: attacker.example (TRUST_PROXY=true)': {
    host: 'videos.example.test',
    'x-forwarded-host': ATTACKER,
    'x-forwarded-proto': 'http',
  },
};

const CONFIGS = {
  production: { NODE_ENV: 'production', PUBLIC_URL, TRUST_PROXY: 'true', REQUIRE_ADMIN_2FA: 'false' },
  // What production was before it required PUBLIC_URL: none set (the server's own address stands in).
  'no PUBLIC_URL set': { TRUST_PROXY: 'true' },
} satisfies Record<string, Record<string, string>>;

for (const [config, env] of Object.entries(CONFIGS))
  forEachStore(`absolute URLs from configuration alone (${config})`, (kind) => {
    let server: TestServer;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    /** Where links must point: PUBLIC_URL, or the server's own address when none is set. */
    let site: string;

    beforeAll(async () => {
      smtp = await startSmtpServer();
      server = await startTestServer(kind, { env: { ...env, SMTP_URL: smtp.url } });
      site = 'PUBLIC_URL' in env ? env.PUBLIC_URL : server.url;
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await smtp?.close();
    });

    for (const [name, headers] of Object.entries(HOSTILE)) {
      it(`a password reset asked with ${name} mails the victim a link to PUBLIC_URL`, async () => {
        const victim = await createTestUser(server.ctx);
        const r = await send(server, 'POST', '/auth/reset-password', headers, { email: victim.email });
        expect(r.status).toBe(200);
        const mails = await mailsTo(server, victim.email);
        const links = mails.flatMap((m) => [...m.text_body.matchAll(/https?:\/\/\S+/g)].map((l) => l[0]));
        expect(links.length).toBeGreaterThan(0);
        for (const link of links) expect(link.startsWith(`${site}/`)).toBe(true);
        expect(links.some((l) => l.startsWith(`${site}/auth/forgot-password?token=`))).toBe(true);
        expect(mails.map((m) => m.text_body).join('\n')).not.toContain(ATTACKER);
      });

      it(`a sign-up sent with ${name} mails the verify link to PUBLIC_URL`, async () => {
        const email = `signup-${Object.keys(HOSTILE).indexOf(name)}-${Object.keys(CONFIGS).indexOf(config)}-${kind}@example.test`;
        const registration = {
          email,
          password: 'member-password-123',
          firstName: 'Sign',
          lastName: 'Up',
          dateOfBirth: '1990-05-05',
          agreeToTerms: true,
        };
        const r = await send(server, 'POST', '/auth/register', headers, registration);
        expect(r.status).toBe(201);
        const text = (await mailsTo(server, email)).map((m) => m.text_body).join('\n');
        expect(text).toContain(`${site}/auth/verify-email?token=`);
        expect(text).not.toContain(ATTACKER);
      });
    }

    it('the stream URLs are same-origin paths whatever Host or X-Forwarded-Host the request names', async () => {
      const admin = await createTestUser(server.ctx, { role: 'admin' });
      const member = await createTestUser(server.ctx);
      const clip = await makeMp4(fixtures, 2);
      const up = await ingestVideoFile(server.ctx, { filePath: clip, title: 'Free clip', accessLevel: 'free', actorId: admin.id });
      if (!up.ok) throw new Error(up.error.message);
      for (const headers of Object.values(HOSTILE)) {
        // The member (no progressive file before the transcode: originals are for admins) and the admin (the original).
        const r = await send(server, 'GET', `/videos/${up.videoId}/stream`, { ...headers, authorization: `Bearer ${member.token}` });
        expect(r.status).toBe(200);
        expect(JSON.stringify(r.body)).not.toContain(ATTACKER);
        const a = await send(server, 'GET', `/videos/${up.videoId}/stream`, { ...headers, authorization: `Bearer ${admin.token}` });
        expect(a.status).toBe(200);
        expect(a.body.data.streamUrl).toMatch(new RegExp(`^/api/media/videos/${up.videoId}\\?u=[^&]+&e=\\d+&(r=[^&]+&)?s=`));
        expect(JSON.stringify(a.body)).not.toContain(ATTACKER);
      }
    });

    // Only where PUBLIC_URL is https (production here).
    if (config === 'production')
      it("cookies are Secure and HSTS is sent because PUBLIC_URL is https, even over the attacker's plain http", async () => {
        const account = { email: `cookies-${kind}@example.test`, password: 'member-password-123' };
        const registration = { ...account, firstName: 'Cookie', lastName: 'Jar', dateOfBirth: '1990-05-05', agreeToTerms: true };
        expect((await send(server, 'POST', '/auth/register', {}, registration)).status).toBe(201);
        const r = await send(server, 'POST', '/auth/login', HOSTILE['Host: attacker.example'] as Record<string, string>, account);
        expect(r.status).toBe(200);
        const cookies = r.headers['set-cookie'] ?? [];
        expect(cookies.length).toBe(2);
        for (const c of cookies) expect(c).toMatch(/;\s*Secure/i);
        expect(r.headers['strict-transport-security']).toBe('max-age=31536000');
      });
  });
