// `npm test` / `pnpm test`: every suite (unit, integration on SQLite and PostgreSQL, browser).
// Installs what a fresh machine lacks, starts a throwaway PostgreSQL on loopback, builds the
// production bundles the browser tests use, runs vitest, and prints one closing summary line.
import fs from 'node:fs';
import path from 'node:path';
import { ensureSystemPackages, installDependencies, pnpm, pnpmRun, run } from './lib.mjs';
import { startPgCluster } from './pgCluster.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const extraArgs = process.argv.slice(2);

ensureSystemPackages();
installDependencies();
pnpmRun(['build']);

let cluster;
let env = {};
if (process.env.TEST_DATABASE_URL) {
  env.TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
} else {
  cluster = await startPgCluster();
  env.TEST_DATABASE_URL = cluster.url;
  console.log(`PostgreSQL for the tests: ${cluster.url}`);
}

const report = path.join(root, 'artifacts', 'vitest-report.json');
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.rmSync(report, { force: true });
const [cmd, pre] = pnpm();
let code;
try {
  code = run(cmd, [...pre, 'exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extraArgs], {
    env: { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
} finally {
  cluster?.stop();
}

if (fs.existsSync(report)) {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) code = 1;
} else {
  console.log('\ntests: 0 passed, 1 failed (no report written)');
  code ||= 1;
}
process.exit(code);
