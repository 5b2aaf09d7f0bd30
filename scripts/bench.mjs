// `pnpm bench`: runs every benchmark under bench/ and prints its figures.
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_NEEDS, ensureSystemPackages, run } from './lib.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const benches = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => /\.(mjs|ts)$/.test(f) && !f.startsWith('_'))
  .sort();
ensureSystemPackages(BENCH_NEEDS);
let failed = 0;
for (const b of benches) {
  console.log(`\n=== bench/${b}`);
  const file = path.join(root, 'bench', b);
  const code = b.endsWith('.ts') ? run('npx', ['tsx', file]) : run('node', [file]);
  if (code !== 0) failed++;
}
process.exit(failed ? 1 : 0);
