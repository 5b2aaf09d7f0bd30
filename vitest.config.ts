// Tiers by file name (see STYLE.md): *.unit.test.ts pure, *.int.test.ts real database/HTTP/ffmpeg/SMTP,
// *.e2e.test.ts real browser. `pnpm test` runs all three.
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each of the slowest files took in a full CI run (artifacts/vitest-*.json, one worker on the
 * 2-core machine: from the previous file's end to this one's, so its worker start, imports and
 * beforeAll count too), longest first. With two workers the unit+int phase ends when its longest
 * queue does: started last (vitest's default order on a fresh clone is by file size, and the bench
 * test is a small file), the 5-minute bench test alone ran on for minutes after everything else. The
 * longest files go first, each to whichever worker is free; the short ones then fill both queues
 * evenly. A file missing here only starts later; refresh the figures when a file's time changes a lot.
 */
const SLOW_FILES: Record<string, number> = {
  // unit+int phase
  'packages/api/test/bench.int.test.ts': 335,
  'packages/api/src/eventstore/catchUp.int.test.ts': 97,
  'packages/api/src/forensics/forensics.int.test.ts': 91,
  'packages/api/test/robustness.int.test.ts': 86,
  'packages/api/src/cli/videosImport.int.test.ts': 51,
  'packages/api/src/audit/cli.int.test.ts': 50,
  'packages/api/src/streaming/mediaAccess.int.test.ts': 48,
  'packages/api/src/crashSafety.int.test.ts': 48,
  'packages/api/src/transcode/transcode.int.test.ts': 46,
  'packages/api/src/transcode/remoteRunner.int.test.ts': 42,
  'packages/api/test/authorization.int.test.ts': 41,
  'packages/ui/src/api/schemas/renamedField.int.test.ts': 34,
  'packages/api/src/deploy.int.test.ts': 31,
  'packages/api/src/media/copy/mediaCopy.int.test.ts': 31,
  'packages/api/src/backup/siteBackup.int.test.ts': 31,
  'packages/api/src/media/s3Runners.int.test.ts': 30,
  'packages/api/src/transcode/runners.int.test.ts': 23,
  'packages/api/src/backup/devSiteBackup.int.test.ts': 23,
  'packages/api/src/media/storeRestart.int.test.ts': 19,
  'packages/api/src/audit/reconcile.int.test.ts': 17,
  'packages/api/src/main.int.test.ts': 17,
  'packages/api/src/cli/cli.int.test.ts': 17,
  'packages/api/src/privacy/erasureMailRace.int.test.ts': 14,
  // e2e phase
  'packages/web/e2e/accessibility.e2e.test.ts': 156,
  'packages/web/e2e/admin-and-session.e2e.test.ts': 47,
  'packages/web/e2e/member-journey.e2e.test.ts': 43,
  'packages/web/e2e/engines.e2e.test.ts': 37,
  'packages/web/e2e/hls-player.e2e.test.ts': 35,
  'packages/web/e2e/captions.e2e.test.ts': 33,
  'packages/web/e2e/player-faults.e2e.test.ts': 29,
  'packages/web/e2e/docs-screenshots.e2e.test.ts': 24,
  'packages/web/e2e/cross-process-hls.e2e.test.ts': 23,
  'packages/web/e2e/account-settings.e2e.test.ts': 17,
  'packages/admin-desktop/test/accessibility.e2e.test.ts': 16,
  'packages/web/e2e/keyboard-journey.e2e.test.ts': 14,
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

/**
 * Unit files that change process-wide state (the time zone: ICU's default zone is the process's,
 * so a worker thread cannot change it for itself): each runs in a process of its own (the
 * unit-process project). Every other unit file shares one thread per worker (the unit project).
 */
const UNIT = ['packages/*/src/**/*.unit.test.{ts,tsx}', 'packages/*/test/**/*.unit.test.{ts,tsx}', 'scripts/**/*.unit.test.ts'];
const UNIT_OWN_PROCESS = ['packages/ui/src/registration/registration.unit.test.ts'];

/** Browser files that run alone, after the others (the e2e-alone project). */
const ALONE = [
  'packages/web/e2e/engines.e2e.test.ts',
  'packages/web/e2e/captions.e2e.test.ts',
  'packages/web/e2e/play-interrupted.e2e.test.ts',
];

export default defineConfig({
  test: {
    sequence: { sequencer: SlowestFirstSequencer },
    // Only the unit project runs in threads: its files share a module graph per thread (see there).
    poolOptions: { threads: { isolate: false } },
    projects: [
      {
        // Pure code, no processes, servers or process-wide state: the files share worker threads
        // without a fresh module graph each (isolate: false). Forked and isolated, the 84 files
        // spent 83 s of CPU starting processes and importing modules for 4.5 s of tests; shared,
        // 16 s. A file that changes process-wide state goes in UNIT_OWN_PROCESS instead.
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...configDefaults.exclude, ...UNIT_OWN_PROCESS],
          environment: 'node',
          // Not isolated: vitest 3 takes a pool's isolation from the root config (below), not the project's.
          pool: 'threads',
        },
      },
      {
        test: {
          name: 'unit-process',
          include: UNIT_OWN_PROCESS,
          environment: 'node',
          pool: 'forks',
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
          exclude: [...configDefaults.exclude, ...ALONE],
          environment: 'node',
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
          include: ALONE,
          environment: 'node',
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
