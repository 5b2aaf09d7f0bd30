// `node scripts/docs-figures.mjs`: writes the generated figures into docs/ (see scripts/docs/figures.mjs);
// `--check` only says which files are stale (exit 1); `pnpm lint` checks them through check-docs.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTsx } from './docs/underTsx.mjs';

ensureTsx(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { regenerate } = await import('./docs/figures.mjs');
const check = process.argv.includes('--check');
const stale = [];
for (const { file, before, after } of await regenerate(root)) {
  if (before === after) continue;
  stale.push(file);
  if (!check) fs.writeFileSync(path.join(root, file), after);
}
if (check && stale.length) {
  console.error(`Generated figures are stale in ${stale.join(', ')}: run node scripts/docs-figures.mjs`);
  process.exit(1);
}
console.log(stale.length ? `updated: ${stale.join(', ')}` : 'docs figures up to date');
