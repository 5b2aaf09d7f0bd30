// The docs scripts import the API's TypeScript modules (the env schema, the CLI's command table, the
// metrics registry): a plain `node scripts/…` re-runs itself once through tsx's loader.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function ensureTsx(scriptUrl) {
  if (process.env.DOCS_SCRIPTS_UNDER_TSX) return;
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(scriptUrl), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, DOCS_SCRIPTS_UNDER_TSX: '1' },
  });
  process.exit(r.status ?? 1);
}
