/**
 * How the suites start the API server and its CLI in a child process. `pnpm test` builds the
 * bundles first and sets API_CHILD=dist: children run `packages/api/dist/main.js` and
 * `dist/cli.js`, what production runs (deploy/Dockerfile, the systemd unit). Without it (a
 * `vitest run FILE` while developing, no build needed) they run the sources through tsx's loader,
 * which compiles every module at each start: about 0.9 s more CPU per child, over some 600 children
 * in a whole run on a machine whose two cores the suite keeps busy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FROM_DIST = process.env.API_CHILD === 'dist';

/** The newest modification time under `dir` (source files only). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestUnder(p));
    else if (/\.tsx?$/.test(e.name) && !/\.(test|testkit)\.tsx?$/.test(e.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

let sourcesNewest: number | undefined;

/** A bundle older than the sources it was built from would test yesterday's code: refuse it by name. */
function freshBundle(file: string): string {
  const built = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  // Both bundles come from the same sources: walk them once.
  sourcesNewest ??= Math.max(newestUnder(path.join(ROOT, 'packages/api/src')), newestUnder(path.join(ROOT, 'packages/ui/src')));
  if (built < sourcesNewest)
    throw new Error(`API_CHILD=dist, but ${path.relative(ROOT, file)} is missing or older than the sources: run \`pnpm -r run build\``);
  return file;
}

const entry = (dist: string, src: string): string[] =>
  FROM_DIST ? [freshBundle(path.join(ROOT, 'packages/api/dist', dist))] : ['--import', 'tsx', path.join(ROOT, 'packages/api/src', src)];

/** `node …` arguments that start the API server (`main.ts`). */
export const API_MAIN_ARGS: readonly string[] = entry('main.js', 'main.ts');
/** `node …` arguments that run the CLI (`pnpm cli`), before the command's own. */
export const API_CLI_ARGS: readonly string[] = entry('cli.js', 'cli/main.ts');
