/**
 * The Debian packages the suites need are listed twice: in .ci/run (bash, before Node 24 and the
 * checkout's scripts can run) and in scripts/lib.mjs (`npm test` and `pnpm bench` on a machine set
 * up by hand). The two lists must be equal, and the README and docs/getting-started.md must name
 * every package, so a suite's new need is installed, and documented, on every path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** `need+=(pkg)` in .ci/run. */
const ciPackages = () => [...read('.ci/run').matchAll(/need\+=\(([a-z0-9.+-]+)\)/g)].map((m) => m[1] as string);
/** `{ pkg: 'name', … }` in scripts/lib.mjs's SYSTEM_NEEDS. */
const libPackages = () => [...read('scripts/lib.mjs').matchAll(/\{\s*pkg: '([a-z0-9.+-]+)'/g)].map((m) => m[1] as string);

it('.ci/run and scripts/lib.mjs install the same Debian packages', () => {
  expect(ciPackages().length).toBeGreaterThan(10);
  expect([...ciPackages()].sort()).toEqual([...libPackages()].sort());
  expect(ciPackages()).toEqual(expect.arrayContaining(['gstreamer1.0-libav', 'systemd', 'ceph-mon', 'ceph-osd', 'radosgw', 'ceph-common']));
});

it('the README and docs/getting-started.md name every package npm test installs', () => {
  for (const page of ['README.md', 'docs/getting-started.md']) {
    const text = read(page);
    for (const pkg of ciPackages()) expect({ page, pkg, named: text.includes(`\`${pkg}\``) }).toEqual({ page, pkg, named: true });
  }
});
