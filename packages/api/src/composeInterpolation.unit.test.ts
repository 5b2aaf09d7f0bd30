/**
 * ASVS 2.10.2 (no default credentials for service accounts) through Compose's own refusal: deploy/'s
 * Compose files read the database password and the secrets as `${VAR:?message}`, which makes
 * `docker compose` refuse to run when the variable is unset or empty (no container engine runs
 * here: deployCompose.testkit interpolates the files the way Compose does, its rules checked first
 * against the Compose specification's). The operator's .env as shipped (deploy/compose.env.example,
 * its secrets empty) is refused; so is one without POSTGRES_PASSWORD, or with it empty.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Compose's `${VAR}` templates, written as Compose files spell them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOY, interpolateCompose, loadCompose, readEnvFile } from './deployCompose.testkit.js';

describe("interpolateCompose follows the Compose specification's interpolation", () => {
  const one = (template: string, vars: Record<string, string>) => interpolateCompose({ v: template }, vars) as { v: string };

  it('${VAR:?err} refuses when unset or empty; ${VAR?err} only when unset', () => {
    expect(() => one('${PW:?set PW}', {})).toThrow('error while interpolating v: required variable PW is missing a value: set PW');
    expect(() => one('${PW:?set PW}', { PW: '' })).toThrow('required variable PW is missing a value: set PW');
    expect(one('${PW:?set PW}', { PW: 's3cret' })).toEqual({ v: 's3cret' });
    expect(() => one('${PW?set PW}', {})).toThrow('required variable PW is missing a value: set PW');
    expect(one('${PW?set PW}', { PW: '' })).toEqual({ v: '' });
    expect(one('${PW?set PW}', { PW: 's3cret' })).toEqual({ v: 's3cret' });
    // The message is the rest of the braces, spaces and punctuation included; an empty one is allowed.
    expect(() => one('${K:?set K (the same for every process; keep it)}', {})).toThrow(
      'required variable K is missing a value: set K (the same for every process; keep it)',
    );
    expect(() => one('${K:?}', {})).toThrow(/required variable K is missing a value: $/);
  });

  it('${VAR:-default} for unset or empty, ${VAR-default} for unset only, ${VAR} empty when unset, $$ a literal $', () => {
    expect(one('${A:-x}', {})).toEqual({ v: 'x' });
    expect(one('${A:-x}', { A: '' })).toEqual({ v: 'x' });
    expect(one('${A:-x}', { A: 'a' })).toEqual({ v: 'a' });
    expect(one('${A-x}', {})).toEqual({ v: 'x' });
    expect(one('${A-x}', { A: '' })).toEqual({ v: '' });
    expect(one('${A}', {})).toEqual({ v: '' });
    expect(one('pre-${A}-${B:-b}-post', { A: 'a' })).toEqual({ v: 'pre-a-b-post' });
    expect(one('$$PW and $${PW:?never checked}', {})).toEqual({ v: '$PW and ${PW:?never checked}' });
  });

  it('names where the refused value sits, in mappings and lists', () => {
    expect(() => interpolateCompose({ services: { db: { environment: { P: '${PW:?set PW}' } } } }, {})).toThrow(
      'error while interpolating services.db.environment.P: required variable PW is missing a value: set PW',
    );
    expect(() => interpolateCompose({ services: { db: { command: ['postgres', '${PW:?set PW}'] } } }, {})).toThrow(
      'error while interpolating services.db.command[]: required variable PW is missing a value: set PW',
    );
  });
});

const EXAMPLE = readEnvFile(path.join(DEPLOY, 'compose.env.example'));
/** The operator's .env done right: the example with its empty secrets filled as `openssl rand -hex 32` would. */
const FILLED = Object.fromEntries(Object.entries(EXAMPLE).map(([k, v]) => [k, v || 'ab'.repeat(32)]));
const without = (name: string) => Object.fromEntries(Object.entries(FILLED).filter(([k]) => k !== name));

/** What `docker compose config` says for a missing variable with this message (after the path). */
const refusal = (name: string, message: string) =>
  new RegExp(`^error while interpolating \\S+: required variable ${name} is missing a value: ${message.replace(/[()[\]]/g, '\\$&')}$`);

for (const files of [['compose.yaml'], ['compose.yaml', 'compose.s3.yaml']])
  describe(`docker compose -f ${files.map((f) => `deploy/${f}`).join(' -f ')}`, () => {
    it("starts with the operator's .env filled in, the password reaching both the database and every API process", () => {
      const model = loadCompose(files, FILLED);
      expect(model.services.db?.environment?.POSTGRES_PASSWORD).toBe(FILLED.POSTGRES_PASSWORD);
      expect(model.services['api-a']?.environment?.DATABASE_URL).toBe(`postgres://members:${FILLED.POSTGRES_PASSWORD}@db/members`);
    });

    it('refuses without POSTGRES_PASSWORD, unset or empty, with its message', () => {
      expect(() => loadCompose(files, without('POSTGRES_PASSWORD'))).toThrow(refusal('POSTGRES_PASSWORD', 'set POSTGRES_PASSWORD'));
      expect(() => loadCompose(files, { ...FILLED, POSTGRES_PASSWORD: '' })).toThrow(refusal('POSTGRES_PASSWORD', 'set POSTGRES_PASSWORD'));
    });

    it('refuses the .env as shipped (deploy/compose.env.example, its secrets left empty)', () => {
      expect(EXAMPLE.POSTGRES_PASSWORD).toBe('');
      expect(() => loadCompose(files, EXAMPLE)).toThrow(
        /required variable (POSTGRES_PASSWORD|TOKEN_SECRET|MFA_KEY_SECRET|DATA_KEY_SECRET) is missing a value/,
      );
    });

    it('refuses without each secret the processes share, each with its own message', () => {
      for (const name of ['TOKEN_SECRET', 'MFA_KEY_SECRET', 'DATA_KEY_SECRET', 'SMTP_URL'])
        for (const vars of [without(name), { ...FILLED, [name]: '' }])
          expect(() => loadCompose(files, vars), name).toThrow(new RegExp(`required variable ${name} is missing a value: set ${name}\\b`));
    });
  });
