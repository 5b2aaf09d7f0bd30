// `pnpm test:repeat FILE… [--times N] [--load K] [--workers W] [--no-build]`: the flake finder. Runs the given
// test files N times (default 5) on one build, with W vitest workers (default 2, as `npm test`), optionally beside K busy processes (a loaded
// 2-core machine: the CI machine while the other vitest worker runs ffmpeg, wrk or a browser),
// and prints each test's pass rate, failures first, with the first line of each failure. A test
// that does not pass every round is a bug in the product or the test: find its cause
// (docs/contributing.md, "A test that fails sometimes"). Starts a throwaway PostgreSQL and Ceph RGW like `npm test`
// unless TEST_DATABASE_URL / TEST_S3_ENDPOINT are set. Writes artifacts/test-repeat.json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodeCompileCache, pnpm, pnpmRun, run } from './lib.mjs';
import { startPgCluster } from './pgCluster.mjs';
import { startRgwCluster } from './rgwCluster.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** @param {string[]} argv */
export function parseArgs(argv) {
  const opts = { files: /** @type {string[]} */ ([]), times: 5, load: 0, build: true, workers: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} takes a whole number, got ${argv[i]}`);
      return v;
    };
    if (a === '--times') opts.times = Math.max(1, value());
    else if (a === '--load') opts.load = value();
    else if (a === '--workers') opts.workers = Math.max(1, value());
    else if (a === '--no-build') opts.build = false;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.files.push(a);
  }
  if (opts.files.length === 0) throw new Error('name at least one test file');
  return opts;
}

/**
 * Each test's outcome in each round, from vitest's JSON reports: `{ name, passed, failed, errors }`
 * per test, the tests that failed in any round first. A file that failed outside its tests (an
 * import error, a hook) counts as a failed pseudo-test named after the file.
 * @param {{ testResults?: { name: string, status?: string, message?: string, assertionResults?: { fullName?: string, title: string, status: string, failureMessages?: string[] }[] }[] }[]} reports
 */
export function passRates(reports, base = root) {
  /** @type {Map<string, { name: string, passed: number, failed: number, errors: string[] }>} */
  const tests = new Map();
  const entry = (name) => {
    const known = tests.get(name);
    if (known) return known;
    const e = { name, passed: 0, failed: 0, errors: /** @type {string[]} */ ([]) };
    tests.set(name, e);
    return e;
  };
  for (const r of reports) {
    for (const file of r.testResults ?? []) {
      const rel = path.relative(base, file.name);
      const results = file.assertionResults ?? [];
      for (const t of results) {
        if (t.status !== 'passed' && t.status !== 'failed') continue;
        const e = entry(`${rel} > ${t.fullName ?? t.title}`);
        if (t.status === 'passed') e.passed++;
        else {
          e.failed++;
          e.errors.push(String(t.failureMessages?.[0] ?? 'failed').split('\n')[0]);
        }
      }
      if (file.status === 'failed' && !results.some((t) => t.status === 'failed')) {
        const e = entry(`${rel} (outside its tests)`);
        e.failed++;
        e.errors.push(String(file.message ?? 'failed').split('\n')[0]);
      }
    }
  }
  return [...tests.values()].sort((a, b) => b.failed - a.failed || a.name.localeCompare(b.name));
}

/** K processes that keep a core busy each (a tight loop with a little allocation), until stopped. */
function startLoad(k) {
  const busy = `let x = 0; for (;;) { x = (x + Math.sqrt(Math.random())) % 1e9; if (x < 0) console.log(x); }`;
  const procs = Array.from({ length: k }, () => spawn(process.execPath, ['-e', busy], { stdio: 'ignore' }));
  return () => {
    for (const p of procs) p.kill('SIGKILL');
  };
}

async function main() {
  process.chdir(root);
  const opts = parseArgs(process.argv.slice(2));
  if (opts.build) pnpmRun(['build']);
  // On a build (the default), the children run its bundles as under `npm test` (packages/api/test/apiEntry.ts).
  const env = {
    ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
    ...(opts.build ? { API_CHILD: 'dist' } : {}),
    // As under `npm test`: Node's code cache, shared by every node process of the rounds.
    NODE_COMPILE_CACHE: nodeCompileCache(),
  };
  let cluster;
  let rgw;
  if (!process.env.TEST_DATABASE_URL) {
    cluster = await startPgCluster();
    env.TEST_DATABASE_URL = cluster.url;
  }
  if (!process.env.TEST_S3_ENDPOINT) {
    rgw = await startRgwCluster();
    Object.assign(env, {
      TEST_S3_ENDPOINT: rgw.endpoint,
      TEST_S3_ACCESS_KEY: rgw.accessKey,
      TEST_S3_SECRET_KEY: rgw.secretKey,
      TEST_S3_CEPH_DIR: rgw.dir,
    });
  }
  const stopLoad = startLoad(opts.load);
  const stopAll = () => {
    stopLoad();
    cluster?.stop();
    rgw?.stop();
  };
  process.on('SIGINT', () => {
    stopAll();
    process.exit(130);
  });
  const [cmd, pre] = pnpm();
  const reports = [];
  const began = Date.now();
  try {
    for (let round = 1; round <= opts.times; round++) {
      const out = path.join(root, 'artifacts', `test-repeat-${round}.json`);
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.rmSync(out, { force: true });
      const t = Date.now();
      console.log(`\n=== round ${round} of ${opts.times} (load ${opts.load})`);
      run(
        cmd,
        [
          ...pre,
          'exec',
          'vitest',
          'run',
          `--maxWorkers=${opts.workers}`,
          '--minWorkers=1',
          '--reporter=dot',
          '--reporter=json',
          `--outputFile.json=${out}`,
          ...opts.files,
        ],
        {
          env: { ...env, CI: process.env.CI ?? 'true' },
        },
      );
      if (fs.existsSync(out)) reports.push(JSON.parse(fs.readFileSync(out, 'utf8')));
      else reports.push({ testResults: [{ name: 'vitest', status: 'failed', message: 'wrote no report' }] });
      console.log(`round ${round}: ${((Date.now() - t) / 1000).toFixed(0)} s`);
    }
  } finally {
    stopAll();
  }
  const rates = passRates(reports);
  const failing = rates.filter((r) => r.failed > 0);
  console.log(`\npass rates over ${opts.times} round(s), load ${opts.load}, ${((Date.now() - began) / 60000).toFixed(1)} min:`);
  for (const r of rates) {
    console.log(`  ${r.passed}/${r.passed + r.failed}  ${r.name}`);
    for (const e of [...new Set(r.errors)]) console.log(`        ${e}`);
  }
  const summary = { files: opts.files, times: opts.times, load: opts.load, tests: rates };
  fs.writeFileSync(path.join(root, 'artifacts', 'test-repeat.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const runs = rates.reduce((n, r) => n + r.passed + r.failed, 0);
  console.log(
    `\ntest-repeat: ${runs - failing.reduce((n, r) => n + r.failed, 0)} passed, ${failing.reduce((n, r) => n + r.failed, 0)} failed`,
  );
  process.exit(failing.length > 0 || rates.length === 0 ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  });
}
