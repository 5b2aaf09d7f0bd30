/**
 * What a suite needs beyond Node that a machine may lack: Debian's nginx and the web app's
 * production build. Like PostgreSQL (harness.ts) and the S3 gateway (s3.ts), a missing one fails
 * the suite when CI=true (`.ci/run` installs nginx, `scripts/test.mjs` builds before testing), and
 * elsewhere skips it with a warning naming what is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's nginx, the binary the suites start in front of the API. */
export const NGINX = '/usr/sbin/nginx';

/** The web app's production build (`pnpm build`), which the API serves as the site. */
export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

/** True when `file` exists; when not, throws under CI=true and answers false (with a warning) elsewhere. */
function present(file: string, what: string, remedy: string): boolean {
  if (fs.existsSync(file)) return true;
  const missing = `${what} (${file}) is missing — ${remedy}`;
  if (process.env.CI === 'true') throw new Error(`${missing}: the suites that need it may not be skipped in CI`);
  console.warn(`${missing}: the suites that need it are not run`);
  return false;
}

/**
 * Whether the suites that start nginx run here.
 * @example describe.runIf(nginxAvailable())('… behind nginx', () => { … });
 */
export function nginxAvailable(): boolean {
  return present(NGINX, 'nginx', 'Debian: apt-get install -y nginx');
}

/** Debian's RTMP module for nginx (the nginx-rtmp shape in front of the live ingest). */
export const NGINX_RTMP_MODULE = '/usr/lib/nginx/modules/ngx_rtmp_module.so';

export function nginxRtmpAvailable(): boolean {
  return nginxAvailable() && present(NGINX_RTMP_MODULE, "nginx's RTMP module", 'Debian: apt-get install -y libnginx-mod-rtmp');
}

/**
 * Whether the suites that serve the web build run here.
 * @example it.runIf(webBuildAvailable())('serves the app shell', async () => { … });
 */
export function webBuildAvailable(): boolean {
  return present(path.join(WEB_DIST, 'index.html'), 'the web build', 'run `pnpm build`');
}
