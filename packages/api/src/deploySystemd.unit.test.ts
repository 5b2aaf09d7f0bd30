/**
 * The systemd shape's files checked without systemd: deploy/api.env.example against the server's
 * environment schema, docs/deployment.md's step 2 against the example and the unit (a required
 * variable missing from either fails), the EnvironmentFile reader the int test starts the
 * server with, on systemd's own rules, and docs/transcode-runners.md's runner unit (a token runner,
 * its token its whole environment; the CLI starts no other kind).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcodeRunner } from './cli/transcodeRunner.js';
import { DEV_SECRETS, fillDevDefaults } from './config/devDefaults.js';
import { envSchema, parseEnv } from './config/env.js';
import { API_ENV_EXAMPLE, PLACEHOLDER, parseEnvironmentFile, readUnit, serviceEnvironment, UNIT_FILE } from './deploySystemd.testkit.js';

const EXAMPLE = parseEnvironmentFile(fs.readFileSync(API_ENV_EXAMPLE, 'utf8'));
const UNIT = readUnit(UNIT_FILE, '8081');
const filled = () => Object.fromEntries(Object.entries(EXAMPLE).map(([k, v]) => [k, v.replaceAll(PLACEHOLDER, 'ab'.repeat(32))]));
/** What the server does with its environment before it listens (main.ts): parse, then refuse missing secrets. */
const startsWith = (vars: Record<string, string>) => fillDevDefaults(parseEnv(vars), { inProduction: 'throw' });

describe('parseEnvironmentFile (systemd.exec(5) EnvironmentFile=)', () => {
  it('skips comments and lines without =, trims around unquoted values, keeps # after a value', () => {
    const text = [
      '# a comment',
      '; another',
      '',
      'not an assignment',
      '  A = spaced value  ',
      'B=x # not a comment',
      "C='single # quoted  '",
      'D="double \\"escaped\\" \\$HOME \\n"',
      'E=Members <no-reply@example.com>',
      'F=back\\',
      'slash',
      'G="a"b',
      'H=a"b"',
      'I=',
      '1BAD=x',
    ].join('\n');
    expect(parseEnvironmentFile(text)).toEqual({
      A: 'spaced value',
      B: 'x # not a comment',
      C: 'single # quoted  ',
      D: 'double "escaped" $HOME \\n',
      E: 'Members <no-reply@example.com>',
      F: 'backslash',
      G: 'ab',
      H: 'a"b"',
      I: '',
    });
  });

  it('lets the file win over the unit’s Environment=, and passes nothing else of the caller', () => {
    const env = serviceEnvironment(UNIT, [{ PORT: '1' }]);
    expect(env.PORT).toBe('1');
    expect(env.HOME).toBeUndefined();
    expect(UNIT.environment).toEqual({ HOST: '127.0.0.1', PORT: '8081', INSTANCE_ID: 'api-8081' });
  });
});

describe('deploy/api.env.example', () => {
  it("sets only the server's variables, and none the unit sets per instance (the file would win)", () => {
    const known = new Set(Object.keys(envSchema.shape));
    for (const name of Object.keys(EXAMPLE)) expect({ name, known: known.has(name) }).toEqual({ name, known: true });
    for (const name of Object.keys(UNIT.environment)) expect({ name, inFile: name in EXAMPLE }).toEqual({ name, inFile: false });
  });

  it('has every secret production requires, and marks each one a placeholder', () => {
    expect(EXAMPLE.NODE_ENV).toBe('production');
    for (const { variable } of DEV_SECRETS) expect({ variable, value: EXAMPLE[variable] }).toEqual({ variable, value: PLACEHOLDER });
    for (const name of ['DATABASE_URL', 'PUBLIC_URL', 'SMTP_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'DATA_DIR', 'SITE_CONFIG'])
      expect({ name, set: !!EXAMPLE[name] }).toEqual({ name, set: true });
    // The data directory is the one path the unit may write (ProtectSystem=strict).
    expect(UNIT.readWritePaths).toContain(EXAMPLE.DATA_DIR);
  });

  it('is refused as shipped, and starts once every CHANGE-ME is replaced', () => {
    expect(() => startsWith(EXAMPLE)).toThrow(/TOKEN_SECRET: must be at least 32 characters/);
    const env = filled();
    expect(() => startsWith(env)).not.toThrow();
    // Each secret is required: without it production refuses to start.
    for (const { variable } of DEV_SECRETS) {
      const { [variable]: _, ...without } = env;
      expect(() => startsWith(without)).toThrow(variable);
    }
  });
});

describe("docs/deployment.md's step 2", () => {
  const page = fs.readFileSync(path.join(path.dirname(API_ENV_EXAMPLE), '../docs/deployment.md'), 'utf8');
  const step = page.slice(page.indexOf('**2. Run N processes**'), page.indexOf('What several\nprocesses share'));
  const named = new Set([...step.matchAll(/`([A-Z][A-Z0-9_]+)(=[^`]*)?`/g)].map((m) => m[1] as string));

  it('names every variable of the example and of the unit, and no other', () => {
    expect(step.length).toBeGreaterThan(100);
    expect(step).toContain('deploy/api.env.example');
    expect([...named].sort()).toEqual([...new Set([...Object.keys(EXAMPLE), ...Object.keys(UNIT.environment)])].sort());
  });
});

describe("docs/transcode-runners.md's runner unit", () => {
  const page = fs.readFileSync(path.join(path.dirname(API_ENV_EXAMPLE), '../docs/transcode-runners.md'), 'utf8');
  const start = page.indexOf('```ini\n# /etc/systemd/system/members-transcode-runner.service');
  const unit = page.slice(start, page.indexOf('```', start + 6));
  const lines = unit.split('\n');

  it('starts a token runner holding RUNNER_TOKEN and nothing else: no database, secret, store credential or DATA_DIR', async () => {
    expect(start).toBeGreaterThan(0);
    const exec = lines.find((l) => l.startsWith('ExecStart='));
    expect(exec).toMatch(/ packages\/api\/dist\/cli\.js transcode-runner --server https:\/\/\S+ /);
    // The environment: one file, RUNNER_TOKEN its only line; no Environment= of its own.
    expect(lines.filter((l) => /^Environment(File)?=/.test(l))).toEqual(['EnvironmentFile=/etc/members/runner.env']);
    expect(unit).toContain('# /etc/members/runner.env (mode 0600): RUNNER_TOKEN=rnr_… (nothing else)');
    for (const name of ['DATABASE_URL', 'TOKEN_SECRET', 'DATA_KEY_SECRET', 'MFA_KEY_SECRET', 'AWS_', 'MEDIA_STORE', 'DATA_DIR'])
      expect({ name, named: unit.includes(name) }).toEqual({ name, named: false });
    // The way it starts reads no variable of the site's: without its token it refuses before anything else.
    const saved = process.env.RUNNER_TOKEN;
    delete process.env.RUNNER_TOKEN;
    try {
      const args = (exec as string).split(' ').slice((exec as string).split(' ').indexOf('transcode-runner') + 1);
      expect(await transcodeRunner.runBare?.(args)).toBe(2);
      // The removed full-context runner (no --server) refuses too: the CLI starts no runner that would read the site's secrets.
      expect(await transcodeRunner.runBare?.([])).toBe(2);
      expect(await transcodeRunner.run({ env: parseEnv({}), site: {} as never, args: [] })).toBe(2);
    } finally {
      if (saved !== undefined) process.env.RUNNER_TOKEN = saved;
    }
  });
});
