// A vitest reporter that writes, for every test file, when it was queued, when its tests began and
// ended, and how long vitest spent importing it (collect) and preparing its worker: the figures
// that say where a phase's wall time goes between files, which the JSON report does not hold.
// The file is $VITEST_TIMELINE_FILE (scripts/test.mjs writes artifacts/vitest-<phase>-timeline.json).
//   pnpm exec vitest run --reporter=default --reporter=./scripts/timeline-reporter.mjs
import fs from 'node:fs';
import path from 'node:path';

export default class TimelineReporter {
  /** @type {number} */
  t0 = Date.now();
  /** @type {Map<string, number>} */
  queued = new Map();
  /** @type {Map<string, number>} */
  started = new Map();
  /** @type {object[]} */
  rows = [];

  onInit(ctx) {
    this.root = ctx.config.root;
  }

  onTestModuleQueued(module) {
    this.queued.set(module.moduleId, Date.now() - this.t0);
  }

  onTestModuleStart(module) {
    this.started.set(module.moduleId, Date.now() - this.t0);
  }

  onTestModuleEnd(module) {
    const d = module.diagnostic();
    const round = (ms) => Math.round(ms);
    this.rows.push({
      file: path.relative(this.root ?? process.cwd(), module.moduleId),
      project: module.project.name,
      queuedMs: this.queued.get(module.moduleId),
      startedMs: this.started.get(module.moduleId),
      endedMs: Date.now() - this.t0,
      prepareMs: round(d.prepareDuration),
      collectMs: round(d.collectDuration),
      setupMs: round(d.setupDuration),
      testsMs: round(d.duration),
      state: module.state(),
    });
  }

  onTestRunEnd() {
    const out = process.env.VITEST_TIMELINE_FILE;
    if (!out) return;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const rows = this.rows.sort((a, b) => a.endedMs - b.endedMs);
    fs.writeFileSync(out, `${JSON.stringify(rows, null, 1)}\n`);
  }
}
