/**
 * The real entry point as an operator runs it (`node main`, with tsx's loader, a child process): a wrong
 * environment stops it with a message naming the variable; the dev admin password is generated and
 * printed once; SIGTERM lets an in-flight request finish, closes the store and exits 0 well within
 * 15 s; a restart keeps every account; a database newer than the code is refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { API_MAIN_ARGS } from '../../test/apiEntry.js';
import { EXAMPLE_SITE_CONFIG, productionSiteConfigFile, randomMainnetAddress } from '../../test/siteConfig.js';
import { openSqlite } from '../db/sqlite.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** A bound that only catches a hang, never a slow machine. */
const HANG_MS = 120_000;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-main-'));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * The environment the test runs in, less what the tests below set themselves: an inherited
 * ADMIN_PASSWORD (or ADMIN_EMAIL, NODE_ENV, DATA_DIR…) would silently change what the entry point
 * does, e.g. print no generated password.
 */
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(ADMIN_|NODE_ENV$|DATA_DIR$|DATABASE_URL$|PUBLIC_URL$|SMTP_URL$|MAIL_TRANSPORT$|ALLOW_TEST_NETWORK$|SITE_CONFIG$)/.test(k),
  ),
);

/**
 * Starts the entry point and resolves once it says where it runs. The only bound is one that
 * catches a hang (a cold tsx start on a loaded 2-core machine takes tens of seconds).
 */
function launch(env: Record<string, string>): Promise<Started> {
  // Node itself (the bundle, or tsx's loader: test/apiEntry.ts), not the tsx CLI. The CLI runs the program in a second process and
  // relays a SIGTERM to it; when that process has not acknowledged the signal within 30 ms (a
  // loaded machine), the CLI SIGKILLs it and exits 143: what these tests measured then was tsx's
  // relay, not the entry point's shutdown (seen: 'expected 143 to be 0' under load).
  const child = spawn(process.execPath, [...API_MAIN_ARGS], {
    cwd: ROOT,
    env: {
      ...inherited,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      // Production refuses the example's test-vector address (its own test below).
      SITE_CONFIG: env.NODE_ENV === 'production' ? productionSiteConfigFile() : EXAMPLE_SITE_CONFIG,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), HANG_MS);
    const check = setInterval(() => {
      const m = /Site running at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ child, url: m[1] as string, output: () => out });
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code}:\n${out}`), { code, out }));
    });
  });
}

/** Resolves once `port` refuses connections: the server has closed its listener (it is shutting down). */
async function refused(port: string): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(Number(port), '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (!open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

async function login(url: string, email: string, password: string) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, body: (await res.json()) as { data?: { user: { role: string; approved: boolean } } } };
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** What a production start needs besides mail and PUBLIC_URL: the secrets and a bootstrap admin, over `dataDir`. */
const productionSecrets = (dataDir: string) => ({
  NODE_ENV: 'production',
  DATA_DIR: dataDir,
  TOKEN_SECRET: 'main-test-token-secret-0123456789abcdef0123',
  MFA_KEY_SECRET: 'main-test-mfa-key-secret-0123456789abcdef01',
  DATA_KEY_SECRET: 'main-test-data-key-secret-0123456789abcdef0',
  ADMIN_EMAIL: 'admin@example.test',
  ADMIN_PASSWORD: 'admin-password-123',
});

describe('the server entry point', { timeout: 3 * HANG_MS }, () => {
  it('refuses a wrong environment with a message naming the variable', async () => {
    const err = (await launch({ PORT: 'eighty' }).catch((e) => e)) as { code: number; out: string };
    expect(err.code).toBe(2);
    expect(err.out).toMatch(/PORT/);
  });

  it('refuses production without SMTP_URL, naming it and MAIL_TRANSPORT=outbox; starts with the outbox said out loud', async () => {
    const production = {
      NODE_ENV: 'production',
      TOKEN_SECRET: 'main-test-token-secret-main-test-token-secret',
      MFA_KEY_SECRET: 'main-test-mfa-key-main-test-mfa-key-0123456789',
      DATA_KEY_SECRET: 'main-test-data-key-main-test-data-key-0123456789',
      ADMIN_EMAIL: 'admin@example.test',
      ADMIN_PASSWORD: 'admin-password-123',
      PUBLIC_URL: 'http://127.0.0.1',
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'members-main-prod-')),
    };
    const err = (await launch(production).catch((e) => e)) as { code: number; out: string };
    expect(err.code).toBe(2);
    expect(err.out).toMatch(/SMTP_URL must be set when NODE_ENV=production/);
    expect(err.out).toMatch(/MAIL_TRANSPORT=outbox/);
    expect(err.out).toMatch(/for testing only/);
    const outbox = await launch({ ...production, MAIL_TRANSPORT: 'outbox' });
    outbox.child.kill('SIGTERM');
    expect(await exited(outbox.child)).toBe(0);
    fs.rmSync(production.DATA_DIR, { recursive: true, force: true });
  });

  it('prints a generated dev admin password once, stops cleanly on SIGTERM after an in-flight request, and keeps data', async () => {
    const first = await launch({});
    const printed = /admin password:\s+(\S+)/.exec(first.output());
    expect(printed, `the first start's output:\n${first.output()}`).not.toBeNull();
    const password = printed?.[1] as string;
    expect((await login(first.url, 'admin@localhost', password)).body.data?.user.role).toBe('admin');

    // An in-flight request: the body arrives in two halves, with SIGTERM in between. Each step
    // waits for the server to show it has happened, never for a fixed time (on a loaded machine a
    // fixed 200 ms could pass before the server had read the headers, and a connection with no
    // request yet is idle, so the shutdown rightly closed it: ECONNRESET): `Expect: 100-continue`
    // makes the server say it has the request's headers, and the listener refusing connections
    // says it has taken the SIGTERM.
    const body = JSON.stringify({ email: 'admin@localhost', password });
    const u = new URL(`${first.url}/api/auth/login`);
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.on('continue', () => {
        req.write(body.slice(0, 10));
        first.child.kill('SIGTERM');
        refused(u.port).then(() => req.end(body.slice(10)), reject);
      });
      req.flushHeaders();
    });
    const [status, code] = await Promise.all([answer, exited(first.child)]);
    expect(status).toBe(200);
    // main.ts force-exits with 1 after 15 s, so 0 means it closed cleanly before that.
    expect(code).toBe(0);

    const second = await launch({});
    expect(second.output()).not.toMatch(/admin password:/);
    expect((await login(second.url, 'admin@localhost', password)).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  });

  it('refuses production on a published test-vector address, another network or a test network, naming the setting (exit 2)', async () => {
    const prodDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-main-prod-'));
    const production = {
      ...productionSecrets(prodDir),
      MAIL_TRANSPORT: 'outbox',
      PUBLIC_URL: 'http://videos.example.test',
    };
    const example = JSON.parse(fs.readFileSync(EXAMPLE_SITE_CONFIG, 'utf8'));
    const configWith = (name: string, bitcoin: object) => {
      const file = path.join(prodDir, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify({ ...example, bitcoin: { ...example.bitcoin, ...bitcoin } }));
      return file;
    };
    const refused = async (siteConfig: string, extra: Record<string, string> = {}) =>
      (await launch({ ...production, SITE_CONFIG: siteConfig, ...extra }).catch((e) => e)) as { code: number; out: string };
    try {
      // The example config as shipped: BIP84's first test-vector address.
      const vector = await refused(EXAMPLE_SITE_CONFIG);
      expect(vector.code, vector.out).toBe(2);
      expect(vector.out).toMatch(/bitcoin\.address bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu is a published test-vector address/);
      // The same vector's account key, in its zpub encoding.
      const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
      const key = await refused(configWith('xpub', { address: undefined, xpub: zpub }));
      expect(key.code, key.out).toBe(2);
      expect(key.out).toMatch(/bitcoin\.xpub is a published test-vector account key/);
      // A testnet address on a mainnet site.
      const other = await refused(configWith('testnet-address', { address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }));
      expect(other.code, other.out).toBe(2);
      expect(other.out).toMatch(/bitcoin\.address tb1q\w+ is a testnet address but bitcoin\.network is mainnet/);
      // A test network, without and with ALLOW_TEST_NETWORK.
      const testnet = configWith('testnet', { network: 'testnet', address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' });
      const network = await refused(testnet);
      expect(network.code, network.out).toBe(2);
      expect(network.out).toMatch(/bitcoin\.network is testnet.*ALLOW_TEST_NETWORK=true/);
      const staging = await launch({ ...production, SITE_CONFIG: testnet, ALLOW_TEST_NETWORK: 'true' });
      staging.child.kill('SIGTERM');
      expect(await exited(staging.child)).toBe(0);
      // An address of the operator's own starts.
      const own = await launch({ ...production, SITE_CONFIG: configWith('own', { address: randomMainnetAddress() }) });
      own.child.kill('SIGTERM');
      expect(await exited(own.child)).toBe(0);
    } finally {
      fs.rmSync(prodDir, { recursive: true, force: true });
    }
  });

  it('refuses to start in production without PUBLIC_URL, naming it with an example (exit 2); with it, the same environment starts', async () => {
    const prodDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-main-prod-'));
    const production = {
      ...productionSecrets(prodDir),
      SMTP_URL: 'smtp://127.0.0.1:1',
    };
    try {
      const err = (await launch(production).catch((e) => e)) as { code: number; out: string };
      expect(err.code).toBe(2);
      expect(err.out).toMatch(/PUBLIC_URL must be set when NODE_ENV=production: .*e\.g\. PUBLIC_URL=https:\/\/videos\.example\.com/);
      // Only PUBLIC_URL was missing. (`launch` waits for an http:// address.)
      const started = await launch({ ...production, PUBLIC_URL: 'http://videos.example.test' });
      expect(started.url).toBe('http://videos.example.test');
      started.child.kill('SIGTERM');
      expect(await exited(started.child)).toBe(0);
    } finally {
      fs.rmSync(prodDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a database whose schema is newer than the code (exit 3, says why)', async () => {
    const newerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-main-newer-'));
    try {
      const db = openSqlite(path.join(newerDir, 'store.sqlite'));
      await db.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      await db.run('INSERT INTO schema_migrations VALUES (?, ?, ?)', [9999, 'from_a_newer_release', new Date().toISOString()]);
      await db.close();
      const err = (await launch({ DATA_DIR: newerDir }).catch((e) => e)) as { code: number; out: string };
      expect(err.code).toBe(3);
      expect(err.out).toMatch(/Refusing to start: The database schema is at migration 9999, newer than this code knows/);
    } finally {
      fs.rmSync(newerDir, { recursive: true, force: true });
    }
  });
});
