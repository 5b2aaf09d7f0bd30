/**
 * deploy/members-api@.service and deploy/api.env.example read the way systemd reads them, for
 * deploySystemd.unit.test.ts and deploySystemd.int.test.ts (no systemd manager runs here):
 * the unit's [Service] settings with the instance specifier `%i` filled in, and an
 * `EnvironmentFile=` parsed as systemd 252 does (systemd.exec(5), src/basic/env-file.c).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEPLOY } from './deployCompose.testkit.js';

export const UNIT_FILE = path.join(DEPLOY, 'members-api@.service');
export const API_ENV_EXAMPLE = path.join(DEPLOY, 'api.env.example');

/**
 * An EnvironmentFile's assignments: blank lines and lines starting with `#` or `;` are skipped, as
 * are lines without `=`; whitespace around the key and around an unquoted value is dropped (interior
 * whitespace kept); `'…'` is verbatim, `"…"` knows the escapes `\"` `\\` `` \` `` `\$`; a backslash
 * before a newline continues the line; outside quotes a backslash keeps the next character. Quotes
 * after the first character of an unquoted value are part of it; so is a `#` after a value.
 */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  let i = 0;
  const n = text.length;
  const blank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r';
  while (i < n) {
    while (i < n && (blank(text[i]) || text[i] === '\n')) i++;
    if (i >= n) break;
    if (text[i] === '#' || text[i] === ';') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    let key = '';
    while (i < n && text[i] !== '=' && text[i] !== '\n') key += text[i++];
    if (text[i] !== '=') continue; // no `=`: ignored
    i++;
    while (i < n && blank(text[i])) i++;
    let value = '';
    // Trailing whitespace of an unquoted run is dropped; `keep` is the length that stays.
    let keep = 0;
    let started = false;
    while (i < n && text[i] !== '\n') {
      const c = text[i] as string;
      if (!started && c === "'") {
        const end = text.indexOf("'", i + 1);
        value += text.slice(i + 1, end < 0 ? n : end);
        i = end < 0 ? n : end + 1;
        keep = value.length;
        while (i < n && blank(text[i])) i++;
        continue;
      }
      if (!started && c === '"') {
        i++;
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < n) {
            const next = text[i + 1] as string;
            if (next === '\n') {
              /* continuation: nothing */
            } else if ('"\\`$'.includes(next)) value += next;
            else value += `\\${next}`;
            i += 2;
          } else value += text[i++];
        }
        i++;
        keep = value.length;
        while (i < n && blank(text[i])) i++;
        continue;
      }
      started = true;
      if (c === '\\' && i + 1 < n) {
        if (text[i + 1] !== '\n') value += text[i + 1];
        i += 2;
        keep = value.length;
        continue;
      }
      value += c;
      i++;
      if (!blank(c)) keep = value.length;
    }
    key = key.trim();
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) vars[key] = value.slice(0, keep);
  }
  return vars;
}

export interface UnitService {
  /** `Environment=` assignments, in order. */
  environment: Record<string, string>;
  environmentFiles: string[];
  workingDirectory: string;
  execStart: string[];
  readWritePaths: string[];
  raw: Record<string, string[]>;
}

/** The [Service] section of a template unit for instance `instance` (`%i`). */
export function readUnit(file: string, instance: string): UnitService {
  const raw: Record<string, string[]> = {};
  let section = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#') || t.startsWith(';')) continue;
    const s = /^\[(.+)\]$/.exec(t);
    if (s) {
      section = s[1] as string;
      continue;
    }
    if (section !== 'Service') continue;
    const eq = t.indexOf('=');
    const key = t.slice(0, eq).trim();
    const value = t
      .slice(eq + 1)
      .trim()
      .replace(/%i/g, instance);
    raw[key] = [...(raw[key] ?? []), value];
  }
  const words = (v: string) => [...v.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]) as string);
  const environment: Record<string, string> = {};
  for (const v of raw.Environment ?? [])
    for (const w of words(v)) {
      const eq = w.indexOf('=');
      environment[w.slice(0, eq)] = w.slice(eq + 1);
    }
  return {
    environment,
    environmentFiles: (raw.EnvironmentFile ?? []).map((f) => f.replace(/^-/, '')),
    workingDirectory: raw.WorkingDirectory?.at(-1) ?? '/',
    execStart: words(raw.ExecStart?.at(-1) ?? ''),
    readWritePaths: (raw.ReadWritePaths ?? []).flatMap(words),
    raw,
  };
}

/**
 * What a service process gets: systemd passes no environment of the caller, only its own PATH and
 * the unit's; an EnvironmentFile= overrides Environment= for the same name (systemd.exec(5)).
 */
export function serviceEnvironment(unit: UnitService, files: Record<string, string>[]): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ...unit.environment,
    ...Object.assign({}, ...files),
  };
}

/** The placeholder the operator replaces in deploy/api.env.example. */
export const PLACEHOLDER = 'CHANGE-ME';
