// Shared helpers for the operator scripts: run a command, find pnpm (global or through npx), and
// install the Debian packages a fresh machine lacks (when we are root with apt-get).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const PNPM_VERSION = '9.15.9';

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts, env: { ...process.env, ...opts.env } });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function must(cmd, args, opts = {}) {
  const code = run(cmd, args, opts);
  if (code !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(' ')} exited with ${code}`);
    process.exit(code);
  }
}

function works(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

/** `pnpm` when it is on PATH, else `npx -y pnpm@9` (a fresh machine has only node and npm). */
export function pnpm() {
  if (works('pnpm', ['--version'])) return ['pnpm', []];
  return ['npx', ['-y', `pnpm@${PNPM_VERSION}`]];
}

export function pnpmRun(args, opts) {
  const [cmd, pre] = pnpm();
  must(cmd, [...pre, ...args], opts);
}

/**
 * Stops with a clear message on a Node older than the supported LTS lines (package.json `engines`):
 * better-sqlite3 13 needs Node 22+ and crashes on load (SIGSEGV) on older ones, which npm's engine
 * check only warns about.
 */
export function requireSupportedNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return;
  console.error(
    `Node ${process.version} is not supported (end of life): install Node 24 LTS (22.12+ works too), see docs/browsers-and-runtime.md (e.g. \`npm i --prefix ~/node24 node@24\`). .ci/run does this by itself.`,
  );
  process.exit(1);
}

export function installDependencies() {
  pnpmRun(['install', '--frozen-lockfile', '--prefer-offline'], { env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
}

const SYSTEM_NEEDS = [
  { pkg: 'ffmpeg', present: () => works('ffprobe', ['-version']) && works('ffmpeg', ['-version']) },
  { pkg: 'chromium', present: () => fs.existsSync('/usr/bin/chromium') },
  // The member journey in the other two engines (packages/web/e2e/engines.e2e.test.ts): Firefox
  // ESR over WebDriver BiDi, WebKitGTK through WebKitWebDriver + MiniBrowser on an Xvfb display.
  { pkg: 'firefox-esr', present: () => fs.existsSync('/usr/bin/firefox-esr') },
  { pkg: 'webkit2gtk-driver', present: () => fs.existsSync('/usr/bin/WebKitWebDriver') },
  { pkg: 'xvfb', present: () => fs.existsSync('/usr/bin/Xvfb') },
  {
    pkg: 'postgresql',
    present: () =>
      fs.existsSync('/usr/lib/postgresql') &&
      fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)),
  },
  { pkg: 'nginx', present: () => fs.existsSync('/usr/sbin/nginx') },
  // The load test's short run of bench/load.mjs (and the benchmarks) drive the server with wrk.
  { pkg: 'wrk', present: () => fs.existsSync('/usr/bin/wrk') },
  // The walkthrough's commands (docs/walkthrough.md, run by packages/api/test/walkthrough.int.test.ts) are curl.
  { pkg: 'curl', present: () => fs.existsSync('/usr/bin/curl') },
  // The S3 media store is tested against a throwaway Ceph RADOS Gateway (scripts/rgwCluster.mjs).
  { pkg: 'ceph-mon', present: () => fs.existsSync('/usr/bin/ceph-mon') },
  { pkg: 'ceph-osd', present: () => fs.existsSync('/usr/bin/ceph-osd') },
  { pkg: 'radosgw', present: () => fs.existsSync('/usr/bin/radosgw') },
  { pkg: 'ceph-common', present: () => fs.existsSync('/usr/bin/radosgw-admin') && fs.existsSync('/usr/bin/ceph') },
];

/** The benchmarks' extra needs beyond the tests' (none today: wrk, nginx, ffmpeg, PostgreSQL and Ceph RGW, which the media-tier benches start, are the tests' needs too). */
export const BENCH_NEEDS = [];

/** Installs missing Debian packages the tests need (ffmpeg, chromium, firefox-esr, webkit2gtk-driver, xvfb, postgresql, nginx, wrk, Ceph RGW), plus `extra`. */
export function ensureSystemPackages(extra = []) {
  const missing = [...SYSTEM_NEEDS, ...extra].filter((n) => !n.present()).map((n) => n.pkg);
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !works('apt-get', ['--version'])) {
    console.error(
      `Missing system packages: ${missing.join(', ')}. Install them (Debian: apt-get install -y ${missing.join(' ')}) and run again.`,
    );
    process.exit(1);
  }
  console.log(`Installing system packages: ${missing.join(', ')}`);
  must('apt-get', ['update', '-qq']);
  must('apt-get', ['install', '-y', '-qq', ...missing], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
}
