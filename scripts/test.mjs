// `npm test` / `pnpm test`: every suite (unit, integration on SQLite and PostgreSQL, browser).
// Installs what a fresh machine lacks, starts a throwaway PostgreSQL and a throwaway Ceph RADOS
// Gateway (S3) on loopback, builds the production bundles the browser tests use, runs vitest, and
// prints one closing summary line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureSystemPackages,
  installDependencies,
  nodeCompileCache,
  pnpm,
  pnpmRun,
  requireSupportedNode,
  run,
  runAsync,
  systemPackagesInstalled,
} from './lib.mjs';
import { startPgCluster } from './pgCluster.mjs';
import { startRgwCluster } from './rgwCluster.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const extraArgs = process.argv.slice(2);

requireSupportedNode();
// Installed first, unless .ci/run installs them in the background meanwhile (startServices waits for
// them): the npm packages, the build, lint and typecheck need none of them; PostgreSQL and Ceph do.
if (!process.env.SYSTEM_PACKAGES_PENDING) ensureSystemPackages();
installDependencies();
pnpmRun(['build']);

/**
 * The throwaway PostgreSQL and Ceph RGW (S3), or the ones TEST_DATABASE_URL / TEST_S3_ENDPOINT name.
 * They start while lint and typecheck run: the daemons mostly wait on their disks and on each other
 * (Ceph's monitor, then its OSD, then the gateway), the checks use the CPU.
 */
async function startServices() {
  if (process.env.SYSTEM_PACKAGES_PENDING) await systemPackagesInstalled();
  const env = {};
  const stops = [];
  const stopAll = () => {
    for (const stop of stops.reverse()) stop();
  };
  try {
    if (process.env.TEST_DATABASE_URL) {
      env.TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
    } else {
      const cluster = await startPgCluster();
      stops.push(() => cluster.stop());
      env.TEST_DATABASE_URL = cluster.url;
      console.log(`PostgreSQL for the tests: ${cluster.url}`);
    }
    // The S3 media store's suites run against a real S3 server: a single-node Ceph cluster on memstore.
    if (process.env.TEST_S3_ENDPOINT) {
      for (const v of ['TEST_S3_ENDPOINT', 'TEST_S3_ACCESS_KEY', 'TEST_S3_SECRET_KEY', 'TEST_S3_CEPH_DIR'])
        if (process.env[v]) env[v] = process.env[v];
    } else {
      const rgw = await startRgwCluster();
      stops.push(() => rgw.stop());
      // TEST_S3_CEPH_DIR: the cluster's folder (its ceph.conf), where media/storeRestart.int.test.ts starts a
      // gateway of its own to kill, and where the bench test runs RGW's garbage collection (bench/lib/s3Services.mjs).
      Object.assign(env, {
        TEST_S3_ENDPOINT: rgw.endpoint,
        TEST_S3_ACCESS_KEY: rgw.accessKey,
        TEST_S3_SECRET_KEY: rgw.secretKey,
        TEST_S3_CEPH_DIR: rgw.dir,
      });
      console.log(`Ceph RGW (S3) for the tests: ${rgw.endpoint} (ready in ${(rgw.readyMs / 1000).toFixed(1)} s)`);
    }
  } catch (err) {
    stopAll();
    throw err;
  }
  return { env, stop: stopAll };
}

const starting = startServices();
// Until it settles, a failure to start is reported here, not as an unhandled rejection.
starting.catch(() => {});
if (extraArgs.length === 0) {
  // Static checks first: a type error or a lint error fails the run like a failing test.
  console.log('\n=== lint and typecheck');
  const [cmd, pre] = pnpm();
  for (const check of ['lint', 'typecheck']) {
    const status = await runAsync(cmd, [...pre, check]);
    if (status !== 0) {
      console.error(`\n✖ pnpm ${check} exited with ${status}`);
      (await starting.catch(() => undefined))?.stop();
      process.exit(status);
    }
  }
}
const services = await starting;
const env = services.env;

// Two phases: the unit and integration suites first, then the browser suites, so that Chromium,
// Firefox and WebKit never share the two cores with the integration suites (that made browser
// timings erratic).
// Workers: vitest's default is one fewer than the cores, so one on the 2-core CI machine, where a
// file spends much of its time waiting (HTTP round trips, child processes, PostgreSQL, Ceph, a
// browser's page loads) and left the second core idle: 26 minutes for unit+int and 9 for the
// browsers. Two workers in each phase, the slowest files first (vitest.config.ts), so the longest
// file (axe on every page, 2.5 minutes; the bench test, 5.5) runs beside the others, not after them.
const workers = `--maxWorkers=${Math.max(2, os.availableParallelism() - 1)}`;
const phases = [
  { name: 'unit+int', args: ['--project', 'unit', '--project', 'unit-process', '--project', 'int', workers, '--minWorkers=1'] },
  // e2e-alone: the WebKitGTK files, after the others and one at a time (vitest.config.ts).
  { name: 'e2e', args: ['--project', 'e2e', '--project', 'e2e-alone', workers, '--minWorkers=1'] },
];
const only = extraArgs.length > 0;
const [cmd, pre] = pnpm();
const totals = { passed: 0, failed: 0, skipped: 0, total: 0 };
/** Every failed test of every phase, named again at the very end: a log cut to its tail still says what failed. */
const failures = [];
let code = 0;
try {
  for (const phase of only ? [{ name: 'selected', args: [] }] : phases) {
    const report = path.join(root, 'artifacts', `vitest-${phase.name}.json`);
    fs.mkdirSync(path.dirname(report), { recursive: true });
    fs.rmSync(report, { force: true });
    console.log(`\n=== ${phase.name} suites`);
    const status = run(
      cmd,
      [
        ...pre,
        'exec',
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
        '--reporter=./scripts/timeline-reporter.mjs',
        ...phase.args,
        ...extraArgs,
      ],
      {
        // API_CHILD=dist: the suites start the API and its CLI from the bundles built above, as
        // production does, instead of compiling the sources at every child's start (test/apiEntry.ts).
        env: {
          ...env,
          ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
          API_CHILD: 'dist',
          NODE_COMPILE_CACHE: nodeCompileCache(),
          VITEST_TIMELINE_FILE: report.replace(/\.json$/, '-timeline.json'),
        },
      },
    );
    if (status !== 0) code = status;
    if (fs.existsSync(report)) {
      const r = JSON.parse(fs.readFileSync(report, 'utf8'));
      totals.passed += r.numPassedTests;
      totals.failed += r.numFailedTests;
      totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
      totals.total += r.numTotalTests;
      for (const file of r.testResults ?? [])
        for (const t of file.assertionResults ?? [])
          if (t.status === 'failed') failures.push(`${path.relative(root, file.name)} > ${t.fullName ?? t.title}`);
      // A file that failed outside its tests (an import error, a hook's timeout) has no failed test of its own.
      for (const file of r.testResults ?? [])
        if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'))
          failures.push(`${path.relative(root, file.name)}: ${String(file.message ?? 'failed').split('\n')[0]}`);
    } else {
      totals.failed += 1;
      code ||= 1;
    }
  }
} finally {
  services.stop();
}

if (failures.length) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
if (totals.total === 0) code ||= 1;
process.exit(code);
