// Shared helpers for the operator scripts: run a command, find pnpm (global or through npx), and
// install the Debian packages a fresh machine lacks (when we are root with apt-get).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PNPM_VERSION = '9.15.9';

/**
 * Node's on-disk code cache for every node process of a test run (vitest's workers, the API and CLI
 * children, the bench scripts): a module compiled once is not compiled again by the next process
 * that loads it. About 0.1 CPU-s of each CLI start's 0.7 on the CI machine, and the suites start
 * several hundred. Keyed by the modules' contents: a stale entry is never used.
 */
export const nodeCompileCache = () => process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'members-node-compile-cache');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts, env: { ...process.env, ...opts.env } });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/** `run` without blocking the event loop (what else this process started goes on meanwhile): resolves to the exit status. */
export function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', ...opts, env: { ...process.env, ...opts.env } });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
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

/** `engines.node` of the root package.json: `^22.12 || ^24`. */
export function enginesNode() {
  return JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
}

/**
 * Whether `version` (`22.11.0`, `v24.1.0`) satisfies `range`, a `||` list of caret ranges
 * (`^22.12`: 22.12.0 and later 22.x) — the only form our `engines` uses.
 */
export function nodeSatisfies(version, range) {
  const v = version.replace(/^v/, '').split('.').map(Number);
  return range.split('||').some((alt) => {
    const m = /^\s*\^(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(alt);
    if (!m) throw new Error(`engines.node: ${alt.trim()} is not a caret range`);
    const want = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
    if (v[0] !== want[0]) return false;
    return v[1] > want[1] || (v[1] === want[1] && v[2] >= want[2]);
  });
}

/**
 * Stops with a clear message on a Node that package.json's `engines` does not allow (22 before
 * 22.12, 23, anything older): better-sqlite3 13 needs Node 22+ and crashes on load (SIGSEGV) on
 * older ones, and npm's engine check only warns. A major newer than every supported one is let
 * through with a warning (not tested).
 */
export function requireSupportedNode(version = process.versions.node) {
  const range = enginesNode();
  if (nodeSatisfies(version, range)) return;
  const majors = [...range.matchAll(/\^(\d+)/g)].map((m) => Number(m[1]));
  if (Number(version.split('.')[0]) > Math.max(...majors)) {
    console.warn(`Node ${version} is newer than the supported lines (${range}): not tested; Node 24 LTS is.`);
    return;
  }
  console.error(
    `Node ${version} is not supported (engines: ${range}): install Node 24 LTS (22.12+ works too), see docs/browsers-and-runtime.md (e.g. \`npm i --prefix ~/node24 node@24\`). .ci/run does this by itself.`,
  );
  process.exit(1);
}

export function installDependencies() {
  pnpmRun(['install', '--frozen-lockfile', '--prefer-offline'], { env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
}

/** The browser suites' Chromium (packages/web/e2e/browser.ts): Debian's headless shell. */
const CHROMIUM_HEADLESS_SHELL = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

const SYSTEM_NEEDS = [
  { pkg: 'ffmpeg', present: () => works('ffprobe', ['-version']) && works('ffmpeg', ['-version']) },
  { pkg: 'chromium-headless-shell', present: () => fs.existsSync(CHROMIUM_HEADLESS_SHELL) },
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
  // Debian's RTMP module: the nginx-rtmp shape in front of the live ingest (packages/api/src/live/nginxRtmp.int.test.ts).
  { pkg: 'libnginx-mod-rtmp', present: () => fs.existsSync('/usr/lib/nginx/modules/ngx_rtmp_module.so') },
  // The load test's short run of bench/load.mjs (and the benchmarks) drive the server with wrk.
  { pkg: 'wrk', present: () => fs.existsSync('/usr/bin/wrk') },
  // The walkthrough's commands (docs/walkthrough.md, run by packages/api/test/walkthrough.int.test.ts) are curl.
  { pkg: 'curl', present: () => fs.existsSync('/usr/bin/curl') },
  // The S3 media store is tested against a throwaway Ceph RADOS Gateway (scripts/rgwCluster.mjs).
  { pkg: 'ceph-mon', present: () => fs.existsSync('/usr/bin/ceph-mon') },
  { pkg: 'ceph-osd', present: () => fs.existsSync('/usr/bin/ceph-osd') },
  { pkg: 'radosgw', present: () => fs.existsSync('/usr/bin/radosgw') },
  { pkg: 'ceph-common', present: () => fs.existsSync('/usr/bin/radosgw-admin') && fs.existsSync('/usr/bin/ceph') },
  // WebKitGTK's H.264 (GStreamer's libav plugin): without it the WebKit journey cannot play the HLS
  // ladder, and only this package brings it (issue 28).
  { pkg: 'gstreamer1.0-libav', present: () => dpkgInstalled('gstreamer1.0-libav') },
  // The rest of WebKitGTK's media (libwebkit2gtk's Recommends: the install below takes none).
  { pkg: 'gstreamer1.0-plugins-bad', present: () => dpkgInstalled('gstreamer1.0-plugins-bad') },
  { pkg: 'gstreamer1.0-gl', present: () => dpkgInstalled('gstreamer1.0-gl') },
  // The fonts the README's screenshots were taken with (docs-screenshots.e2e compares pixels).
  { pkg: 'fonts-urw-base35', present: () => dpkgInstalled('fonts-urw-base35') },
  { pkg: 'fonts-noto-mono', present: () => dpkgInstalled('fonts-noto-mono') },
  { pkg: 'fonts-droid-fallback', present: () => dpkgInstalled('fonts-droid-fallback') },
  // `systemd-analyze verify` on deploy/members-api@.service (packages/api/src/deploySystemd.int.test.ts).
  { pkg: 'systemd', present: () => fs.existsSync('/usr/bin/systemd-analyze') },
  // The mail suite reads messages back with Python's strict e-mail parser (mail/lineEnds.int.test.ts).
  { pkg: 'python3', present: () => fs.existsSync('/usr/bin/python3') },
];

function dpkgInstalled(pkg) {
  // `${Status}` is dpkg-query's own format field, not a template placeholder.
  const r = spawnSync('dpkg-query', ['-W', '-f=$' + '{Status}', pkg], { encoding: 'utf8' });
  return !r.error && r.status === 0 && r.stdout.includes('install ok installed');
}

/** The benchmarks' extra needs beyond the tests' (none today: wrk, nginx, ffmpeg, PostgreSQL and Ceph RGW, which the media-tier benches start, are the tests' needs too). */
export const BENCH_NEEDS = [];

/**
 * The Debian packages, when .ci/run installs them in the background while `npm test` installs and
 * builds: SYSTEM_PACKAGES_PENDING names the file its job writes apt-get's exit status to (its output
 * beside it, `.log`), SYSTEM_PACKAGES_JOB the job's pid. Waits for the job, prints its last line (or
 * its whole output if it failed), then checks like ensureSystemPackages, which installs whatever is
 * still missing. Without the variables, ensureSystemPackages alone.
 */
export async function systemPackagesInstalled(extra = []) {
  const pending = process.env.SYSTEM_PACKAGES_PENDING;
  if (pending) {
    const job = Number(process.env.SYSTEM_PACKAGES_JOB);
    const alive = () => {
      try {
        process.kill(job, 0);
        return true;
      } catch {
        return false;
      }
    };
    const since = Date.now();
    // The job writes its status (renamed into place) as its last act: gone without one, it was killed.
    while (!fs.existsSync(pending) && (!job || alive())) await new Promise((resolve) => setTimeout(resolve, 250));
    const status = fs.existsSync(pending) ? fs.readFileSync(pending, 'utf8').trim() : 'none (the job ended without one)';
    const log = fs.existsSync(`${pending}.log`) ? fs.readFileSync(`${pending}.log`, 'utf8').trim() : '';
    const waited = `${((Date.now() - since) / 1000).toFixed(0)} s waited for it here`;
    if (status === '0') console.log(`System packages: ${log.split('\n').at(-1)} (${waited})`);
    else console.error(`System packages: the background install failed, status ${status} (${waited}):\n${log}`);
  }
  ensureSystemPackages(extra);
}

/** Installs missing Debian packages the tests need (SYSTEM_NEEDS above; .ci/run installs the same list), plus `extra`. */
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
  // Only what is named (SYSTEM_NEEDS lists the Recommends the suites use), as .ci/run does.
  must('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
}
