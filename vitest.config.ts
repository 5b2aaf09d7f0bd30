// Tiers by file name (see STYLE.md): *.unit.test.ts pure, *.int.test.ts real database/HTTP/ffmpeg/SMTP,
// *.e2e.test.ts real browser. `pnpm test` runs all three.
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each of the slowest files took in a fresh clone's full run (testsMs in
 * artifacts/vitest-<phase>-timeline.json, scripts/timeline-reporter.mjs: two workers on the 2-core
 * machine, the file's hooks and tests), longest first. With two workers the unit+int
 * phase ends when its longest queue does: started last (vitest's default order on a fresh clone is
 * by file size, and the bench test is a small file), the 5-minute bench test alone ran on for
 * minutes after everything else. The longest files go first, each to whichever worker is free; the
 * short ones then fill both queues evenly. A file missing here only starts later; refresh the
 * figures when a file's time changes a lot.
 */
const SLOW_FILES: Record<string, number> = {
  // unit+int phase
  'packages/api/test/bench.int.test.ts': 290,
  'packages/api/test/robustness.int.test.ts': 158,
  'packages/api/src/forensics/forensics.int.test.ts': 121,
  'packages/api/src/crashSafety.int.test.ts': 116,
  'packages/ui/src/api/schemas/renamedField.int.test.ts': 115,
  'packages/api/test/authorization.int.test.ts': 86,
  'packages/api/src/cli/videosImport.int.test.ts': 82,
  'packages/api/src/transcode/transcode.int.test.ts': 73,
  'packages/api/src/streaming/mediaAccess.int.test.ts': 56,
  'packages/api/src/transcode/remoteRunner.int.test.ts': 46,
  'packages/api/src/audit/cli.int.test.ts': 44,
  'packages/api/src/deploy.int.test.ts': 41,
  'packages/api/src/audit/reconcile.int.test.ts': 38,
  'packages/api/src/media/copy/mediaCopy.int.test.ts': 38,
  'packages/api/src/forensics/leakExaminations.int.test.ts': 38,
  'packages/api/src/eventstore/catchUp.int.test.ts': 34,
  'packages/api/src/backup/siteBackup.int.test.ts': 33,
  'packages/api/src/http/keepAlive.int.test.ts': 33,
  'packages/api/src/media/s3Runners.int.test.ts': 29,
  'packages/api/src/media/storeRestart.int.test.ts': 26,
  'packages/api/src/backup/devSiteBackup.int.test.ts': 22,
  'packages/api/src/billing/chain/chainChecks.int.test.ts': 21,
  'packages/api/src/uploads/uploads.int.test.ts': 21,
  'packages/api/src/wiring/main.int.test.ts': 21,
  // e2e phase (the e2e project; the three-engine files without WebKitGTK)
  'packages/web/e2e/accessibility.e2e.test.ts': 112,
  'packages/web/e2e/admin-and-session.e2e.test.ts': 75,
  'packages/web/e2e/player-faults.e2e.test.ts': 62,
  'packages/web/e2e/member-journey.e2e.test.ts': 61,
  'packages/web/e2e/play-interrupted.e2e.test.ts': 51,
  'packages/web/e2e/hls-player.e2e.test.ts': 50,
  'packages/web/e2e/engines.e2e.test.ts': 47,
  'packages/web/e2e/docs-screenshots.e2e.test.ts': 47,
  'packages/web/e2e/cross-process-hls.e2e.test.ts': 38,
  'packages/web/e2e/captions.e2e.test.ts': 35,
  'packages/web/e2e/account-settings.e2e.test.ts': 32,
  'packages/admin-desktop/test/bulkUpload.e2e.test.ts': 28,
  'packages/web/e2e/keyboard-journey.e2e.test.ts': 27,
  'packages/admin-desktop/test/accessibility.e2e.test.ts': 25,
};

/** Longest known files first; the rest in vitest's own order (its cached durations, else file size). */
class SlowestFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (f: TestSpecification) => SLOW_FILES[path.relative(this.ctx.config.root, f.moduleId)] ?? 0;
    // Array.prototype.sort is stable: equal (unlisted) files keep the base order.
    return sorted.sort((a, b) => seconds(b) - seconds(a));
  }
}

/** How long a unit test may run before it is called hung (its CPU time under load, not a target). */
const UNIT_HANG_MS = 60_000;

/** The unit tier: pure code (STYLE.md). */
const UNIT = ['packages/*/src/**/*.unit.test.{ts,tsx}', 'packages/*/test/**/*.unit.test.{ts,tsx}', 'scripts/**/*.unit.test.ts'];

/**
 * Unit files that change process-wide state (the time zone: ICU's default zone is the process's,
 * so a worker thread cannot change it for itself): they run in a forked process (the unit-process
 * project), not in the unit project's shared threads.
 */
const UNIT_OWN_PROCESS = ['packages/ui/src/registration/registration.unit.test.ts'];

/**
 * The files that drive all three engines. Each runs in two projects: its WebKitGTK tests in
 * e2e-alone, one file at a time after the other browser files, and its Chromium and Firefox tests
 * in e2e, beside them (packages/web/e2e/engines/ofThisRun.ts).
 */
const THREE_ENGINES = [
  'packages/web/e2e/engines.e2e.test.ts',
  'packages/web/e2e/captions.e2e.test.ts',
  'packages/web/e2e/play-interrupted.e2e.test.ts',
  'packages/web/e2e/live-engines.e2e.test.ts',
  'packages/web/e2e/screen-chunks.e2e.test.ts',
];

/**
 * Passwords are hashed at argon2id's smallest cost in every test process (identity/passwords.ts:
 * honoured only where NODE_ENV=test, so a child server started with NODE_ENV=production, and every
 * real server, hashes at the OWASP cost). Set here, in the process that forks the workers, so the
 * workers and every child they start inherit it. The suites hash thousands of passwords, each 20 ms
 * of CPU at the production cost. identity/mailAbuse.int.test.ts, which compares the CPU of requests
 * that hash with one that does not, takes the production cost back for its file.
 */
process.env.PASSWORD_HASH_COST ??= 'minimum';

export default defineConfig({
  test: {
    sequence: { sequencer: SlowestFirstSequencer },
    // Vitest 3 takes a pool's isolation from here, not from a project's config. No project isolates
    // its files: a worker (the unit project's threads, the other projects' forks) runs file after
    // file in one module graph instead of starting a fresh process and importing the API again for
    // each. Forked and isolated, the unit files spent 83 s of CPU starting processes and importing
    // modules for 4.5 s of tests (16 s shared), and the identity folder's 16 int files 80 s (35 s
    // shared). What a file changes for the whole process (the time zone, the working directory)
    // needs a process of its own: UNIT_OWN_PROCESS, a project of one file.
    poolOptions: { threads: { isolate: false }, forks: { isolate: false } },
    projects: [
      {
        // Pure code, no processes or servers: threads, cheaper than forks.
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...configDefaults.exclude, ...UNIT_OWN_PROCESS],
          environment: 'node',
          pool: 'threads',
          // A bound that only catches a hang, not vitest's 5 s: the unit files start beside the
          // slowest integration files, and a test that computes for 1 s alone (the forensic
          // detector's synthetic frames) took 5.5 s on a loaded machine and timed out.
          testTimeout: UNIT_HANG_MS,
        },
      },
      {
        test: {
          name: 'unit-process',
          include: UNIT_OWN_PROCESS,
          environment: 'node',
          pool: 'forks',
          testTimeout: UNIT_HANG_MS,
        },
      },
      {
        test: {
          name: 'int',
          include: ['packages/*/src/**/*.int.test.ts', 'packages/*/test/**/*.int.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['packages/*/test/**/*.e2e.test.ts', 'packages/*/e2e/**/*.e2e.test.ts'],
          environment: 'node',
          env: { E2E_ENGINES: 'Chromium,Firefox ESR' },
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The WebKitGTK journeys, after the other browser files and one at a time: WebKitWebDriver
        // fails under load (docs/browsers-and-runtime.md, "WebKitGTK under load").
        test: {
          name: 'e2e-alone',
          include: THREE_ENGINES,
          environment: 'node',
          env: { E2E_ENGINES: 'WebKitGTK' },
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
