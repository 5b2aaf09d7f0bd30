// Regenerates the README's screenshots (docs/images/member-site.png, admin-dashboard.png) from a
// seeded site in Debian's Chromium: runs the e2e test that otherwise compares them
// (packages/web/e2e/docs-screenshots.e2e.test.ts) with UPDATE_DOCS_SCREENSHOTS=1, so the files
// are written by the same code that checks them. Look at them before committing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = spawnSync('pnpm', ['exec', 'vitest', 'run', '--project', 'e2e', 'packages/web/e2e/docs-screenshots.e2e.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, UPDATE_DOCS_SCREENSHOTS: '1' },
});
process.exit(run.status ?? 1);
