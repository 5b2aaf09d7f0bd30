// The TypeScript sources the lint scripts read (check-error-branching, check-test-code,
// check-table-owners): every .ts/.tsx file below a folder, node_modules and build output left out.
import fs from 'node:fs';
import path from 'node:path';

/** A test or a testkit, by its name (STYLE.md's tiers). */
export const isTest = (f) => /\.(unit|int|e2e)\.test\.tsx?$/.test(f) || /\.testkit\.tsx?$/.test(f);

/** Every .ts and .tsx file below `dir`, tests included. */
export function* sourceFiles(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.tsx?$/.test(e.name)) yield p;
  }
}
