/**
 * The production entry point (`pnpm start`): parse the environment, fill the development defaults
 * (and say so), start the server, stop cleanly on SIGTERM/SIGINT.
 */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env, parseEnv } from './config/env.js';
import { loadSiteConfig, ROOT_DIR } from './config/site.js';
import { describeStore, SchemaTooNewError } from './context.js';
import { modules } from './modules.js';
import { startServer } from './server.js';

/** A secret that survives restarts in development: generated once into DATA_DIR. */
function devSecret(env: Env, name = 'dev-token-secret'): string {
  const file = path.join(env.DATA_DIR, name);
  fs.mkdirSync(env.DATA_DIR, { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(48).toString('hex'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

async function main() {
  const env = parseEnv();
  if (!env.TOKEN_SECRET) {
    if (env.NODE_ENV === 'production') throw new ConfigError('TOKEN_SECRET must be set when NODE_ENV=production');
    env.TOKEN_SECRET = devSecret(env);
    console.warn(`[dev default] TOKEN_SECRET not set: using a generated secret stored in ${path.join(env.DATA_DIR, 'dev-token-secret')}`);
  }
  if (!env.MFA_KEY_SECRET) {
    if (env.NODE_ENV === 'production') throw new ConfigError('MFA_KEY_SECRET must be set when NODE_ENV=production');
    env.MFA_KEY_SECRET = devSecret(env, 'dev-mfa-key-secret');
    console.warn(
      `[dev default] MFA_KEY_SECRET not set: using a generated secret stored in ${path.join(env.DATA_DIR, 'dev-mfa-key-secret')}`,
    );
  }
  if (!env.DATA_KEY_SECRET) {
    if (env.NODE_ENV === 'production') throw new ConfigError('DATA_KEY_SECRET must be set when NODE_ENV=production');
    env.DATA_KEY_SECRET = devSecret(env, 'dev-data-key-secret');
    console.warn(
      `[dev default] DATA_KEY_SECRET not set: using a generated secret stored in ${path.join(env.DATA_DIR, 'dev-data-key-secret')}`,
    );
  }
  const { config: site, file: siteFile } = loadSiteConfig(env.SITE_CONFIG);
  if (siteFile.endsWith('site.config.example.json'))
    console.warn(`[dev default] using ${siteFile}; copy it to site.config.json for your brand`);
  const webDist = env.WEB_DIST ?? path.join(ROOT_DIR, 'packages/web/dist');
  const server = await startServer(env, site, modules, { webDist });
  server.ctx.logger.info({ url: server.url, store: describeStore(env), metrics: server.metricsUrl }, 'server listening');
  console.log(`Site running at ${env.PUBLIC_URL ?? server.url} (store: ${describeStore(env)})`);

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
