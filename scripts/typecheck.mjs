// `pnpm typecheck`: every TypeScript project of the repository checked by TypeScript 7, the native
// compiler (the `typescript-7` alias of typescript@7.0.2; `typescript` stays 5.9 for the tools that
// use the compiler's JavaScript API, which TypeScript 7 no longer ships: dependency-cruiser,
// packages/ui/src/api/schemas/renamedField.int.test.ts). Same tsconfig files, same strictness.
// TypeScript 5.9 took 98 CPU-s for the six projects on the 2-core CI machine, TypeScript 7 about 35
// single-threaded: two projects at a time, each on one thread, keep the two cores busy without the
// parallel checkers' extra CPU (about 60 CPU-s with its defaults), and the suite runs after this.
//   node scripts/typecheck.mjs [PROJECT_DIR…]   (default: all of them)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const PROJECTS = ['packages/api', 'packages/ui', 'packages/web', 'packages/admin-desktop', 'packages/web/e2e', 'bench'];
const projects = process.argv.length > 2 ? process.argv.slice(2).map((p) => path.relative(root, path.resolve(p))) : PROJECTS;
const tsc = path.join(path.dirname(createRequire(path.join(root, 'package.json')).resolve('typescript-7/package.json')), 'bin/tsc');

/** Runs one project's check, its output kept together (two run at once). */
function check(project) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [tsc, '-p', path.join(project, 'tsconfig.json'), '--singleThreaded', '--pretty'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${status === 0 ? '✓' : '✖'} ${project} (${seconds} s)\n${output}`);
      resolve(status);
    });
  });
}

const queue = [...projects];
let failed = 0;
await Promise.all(
  Array.from({ length: Math.min(queue.length, Math.max(1, os.availableParallelism())) }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) if ((await check(p)) !== 0) failed += 1;
  }),
);
if (failed) {
  console.error(`\n✖ typecheck: ${failed} of ${projects.length} projects have errors`);
  process.exit(1);
}
