/**
 * The production entry point (`pnpm start`): parse the environment, fill the development defaults
 * (and say so), start the server, stop cleanly on SIGTERM/SIGINT.
 */

import path from 'node:path';
import { productionBitcoinProblems } from '../billing/index.js';
import { devPublicUrl, fillDevDefaults } from '../config/devDefaults.js';
import { ConfigError, checkMailTransport, parseEnv } from '../config/env.js';
import { loadSiteConfig, ROOT_DIR } from '../config/site.js';
import { describeStore, SchemaTooNewError } from '../kernel/context.js';
import { modules } from './modules.js';
import { startServer } from './server.js';

async function main() {
  const env = parseEnv();
  const publicUrlDefaulted = !env.PUBLIC_URL;
  for (const d of fillDevDefaults(env, { inProduction: 'throw' }))
    console.warn(`[dev default] ${d.variable} not set: using a generated secret stored in ${d.file}`);
  checkMailTransport(env);
  const { config: site, file: siteFile } = loadSiteConfig(env.SITE_CONFIG);
  if (env.NODE_ENV === 'production') {
    const problems = productionBitcoinProblems(site.bitcoin, env);
    if (problems.length > 0) throw new ConfigError(`Refusing to start with site config ${siteFile}:\n  ${problems.join('\n  ')}`);
  }
  if (siteFile.endsWith('site.config.example.json'))
    console.warn(`[dev default] using ${siteFile}; copy it to site.config.json for your brand`);
  const webDist = env.WEB_DIST ?? path.join(ROOT_DIR, 'packages/web/dist');
  const server = await startServer(env, site, modules, { webDist });
  // Before the server says it runs: a supervisor may stop it the moment it reads that line, and a
  // SIGTERM with no handler yet kills the process without the clean stop.
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    server.ctx.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      console.error('Shutdown took longer than 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    server
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error(err);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (publicUrlDefaulted) {
    // PORT=0: the port the system gave.
    env.PUBLIC_URL = devPublicUrl(server.port);
    console.warn(`[dev default] PUBLIC_URL not set: using ${env.PUBLIC_URL} (mailed links, cookies); set it to the address members use`);
  }
  server.ctx.logger.info({ url: server.url, store: describeStore(env), metrics: server.metricsUrl }, 'server listening');
  console.log(`Site running at ${publicUrlDefaulted ? server.url : env.PUBLIC_URL} (store: ${describeStore(env)})`);
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  if (err instanceof SchemaTooNewError) {
    console.error(`Refusing to start: ${err.message}`);
    process.exit(3);
  }
  console.error(err);
  process.exit(1);
});
