/**
 * One release number and one licence everywhere: every package.json's `version` is APP_VERSION (the
 * OpenAPI document's `info.version`) and a semantic version, CHANGELOG.md (Keep a Changelog) has an
 * Unreleased section and then APP_VERSION as its newest release, and every package.json says MIT,
 * as LICENSE does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { APP_VERSION } from './version.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const MANIFESTS = ['package.json', ...fs.readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/package.json`)];

it('every package.json has the release version, a semantic one, and the MIT licence', () => {
  expect(APP_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  expect(MANIFESTS.length).toBe(5);
  for (const file of MANIFESTS) {
    const pkg = JSON.parse(read(file)) as { version?: string; license?: string };
    expect({ file, version: pkg.version, license: pkg.license }).toEqual({ file, version: APP_VERSION, license: 'MIT' });
  }
  expect(read('LICENSE')).toMatch(/^MIT License\n/);
});

it("CHANGELOG.md's newest release is this version, under an Unreleased section, newest first", () => {
  const headings = [...read('CHANGELOG.md').matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({
    version: m[1] as string,
    date: m[2],
  }));
  expect(headings[0]).toEqual({ version: 'Unreleased', date: undefined });
  expect(headings[1]?.version).toBe(APP_VERSION);
  const released = headings.slice(1);
  for (const h of released)
    expect({ ...h, semver: /^\d+\.\d+\.\d+$/.test(h.version), dated: !!h.date }).toEqual({ ...h, semver: true, dated: true });
  const dates = released.map((h) => h.date as string);
  expect(dates).toEqual([...dates].sort().reverse());
});
