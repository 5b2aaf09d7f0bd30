/**
 * The development defaults of the secrets, shared by the server (main.ts) and every CLI command
 * (cli/main.ts): a secret that is not set is generated once into a file in DATA_DIR and read from
 * there afterwards, so a site run with `npm run site` keeps its sessions, second factors and data
 * keys across restarts, and a CLI command reads what the server wrote. With NODE_ENV=production
 * nothing is filled: the server refuses to start without them. A backup carries these files (and
 * only these: never a secret set in the environment), marked as dev defaults (backup/siteBackup.ts).
 * PUBLIC_URL, the site's address every absolute URL is built from, is filled the same way (not a
 * secret, no file: `http://localhost:PORT`) and is required in production too.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env } from './env.js';

/** The secrets with a dev default, and the file in DATA_DIR each is kept in. */
export const DEV_SECRETS = [
  { variable: 'TOKEN_SECRET', file: 'dev-token-secret' },
  { variable: 'MFA_KEY_SECRET', file: 'dev-mfa-key-secret' },
  { variable: 'DATA_KEY_SECRET', file: 'dev-data-key-secret' },
] as const;

export type DevSecret = (typeof DEV_SECRETS)[number];

export interface FilledDefault {
  variable: DevSecret['variable'];
  /** The file in DATA_DIR it was read from (or generated into). */
  file: string;
  /** True when this call created the file. */
  generated: boolean;
}

/** PUBLIC_URL's dev default: what a developer opens (main.ts puts the real port in when PORT=0). */
export const devPublicUrl = (port: number) => `http://localhost:${port}`;

/**
 * Fills PUBLIC_URL's dev default (not a secret: never in the answer or a backup), then every unset
 * secret of `env` from (or into) its file in DATA_DIR, and answers which secrets it filled. With
 * NODE_ENV=production an unset secret or PUBLIC_URL is an error (`inProduction: 'throw'`, the
 * server) or stays unset (`'leave'`, the CLI: a command that needs it says so).
 */
export function fillDevDefaults(env: Env, opts: { inProduction: 'throw' | 'leave' }): FilledDefault[] {
  const filled: FilledDefault[] = [];
  if (!env.PUBLIC_URL) {
    if (env.NODE_ENV !== 'production') env.PUBLIC_URL = devPublicUrl(env.PORT);
    else if (opts.inProduction === 'throw')
      throw new ConfigError(
        "PUBLIC_URL must be set when NODE_ENV=production: the address members use, e.g. PUBLIC_URL=https://videos.example.com (mailed links, redirects and the cookies' Secure flag come from it, never from the request's Host)",
      );
  }
  for (const s of DEV_SECRETS) {
    if (env[s.variable]) continue;
    if (env.NODE_ENV === 'production') {
      if (opts.inProduction === 'throw') throw new ConfigError(`${s.variable} must be set when NODE_ENV=production`);
      continue;
    }
    const file = path.join(env.DATA_DIR, s.file);
    let generated = false;
    if (!fs.existsSync(file)) {
      fs.mkdirSync(env.DATA_DIR, { recursive: true });
      try {
        fs.writeFileSync(file, randomBytes(48).toString('hex'), { mode: 0o600, flag: 'wx' });
        generated = true;
      } catch (err) {
        // Another process (the server and a CLI command started together) wrote it first: use theirs.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    env[s.variable] = fs.readFileSync(file, 'utf8').trim();
    filled.push({ variable: s.variable, file, generated });
  }
  return filled;
}
