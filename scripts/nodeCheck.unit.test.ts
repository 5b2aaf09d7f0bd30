/** The start-up Node check (scripts/lib.mjs) allows exactly what package.json's `engines` says. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { enginesNode, nodeSatisfies } from './lib.mjs';

it('reads engines ^22.12 || ^24: 22 before 22.12 and 23 are refused, 22.12+ and 24 accepted', () => {
  expect(enginesNode()).toBe('^22.12 || ^24');
  const range = enginesNode();
  const allowed = (v: string) => nodeSatisfies(v, range);
  expect(['22.12.0', '22.20.1', 'v24.0.0', '24.11.1'].map(allowed)).toEqual([true, true, true, true]);
  expect(['20.19.0', '22.0.0', '22.11.9', '23.5.0', '21.7.3'].map(allowed)).toEqual([false, false, false, false, false]);
});

it('stops `npm test` and `npm run site` on Node 22.11 with the message naming the fix', () => {
  const lib = path.join(import.meta.dirname, 'lib.mjs');
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { requireSupportedNode } from '${lib}'; requireSupportedNode('22.11.0');`],
    {
      encoding: 'utf8',
    },
  );
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('Node 22.11.0 is not supported (engines: ^22.12 || ^24): install Node 24 LTS');
  const ok = spawnSync(process.execPath, [
    '--input-type=module',
    '-e',
    `import { requireSupportedNode } from '${lib}'; requireSupportedNode('22.12.0');`,
  ]);
  expect(ok.status).toBe(0);
});
