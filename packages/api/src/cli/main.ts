/**
 * Operator commands (`pnpm cli <command>`), reading the same environment as the server and
 * working with the server stopped. Each command lives in its own module and registers here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, parseEnv } from '../config/env.js';
import { loadSiteConfig } from '../config/site.js';
import { SchemaTooNewError } from '../db/migrate.js';
import { commands } from './commands.js';

function devDataKeySecret(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'dev-data-key-secret');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  pnpm cli ${name.padEnd(28)} ${c.summary}`);
  return `Usage:\n${lines.join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  // Longest matching command name wins ("audit verify" before "audit").
  const names = Object.keys(commands).sort((a, b) => b.split(' ').length - a.split(' ').length);
  const name = names.find((n) => n.split(' ').every((part, i) => argv[i] === part));
  if (!name) {
    console.error(argv.length ? `Unknown command: ${argv.join(' ')}\n` : '');
    console.error(usage());
    return argv.length && !['help', '--help', '-h'].includes(argv[0] ?? '') ? 2 : 0;
  }
  const rest = argv.slice(name.split(' ').length);
  const env = parseEnv();
  env.TOKEN_SECRET ??= 'cli-does-not-sign-tokens-cli-does-not-sign-tokens';
  // The server's dev default (main.ts writes it into DATA_DIR); production sets DATA_KEY_SECRET.
  env.DATA_KEY_SECRET ??= devDataKeySecret(env.DATA_DIR);
  const { config: site } = loadSiteConfig(env.SITE_CONFIG);
  return (await commands[name]?.run({ env, site, args: rest })) ?? 0;
}

/**
 * Exits once stdout and stderr have flushed: `process.exit` right after a large report drops what is
 * still buffered for a pipe (an auditor's `> payments.csv` lost its last rows under load).
 */
function exitAfterFlush(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2))
  .then(exitAfterFlush)
  .catch((err) => {
    console.error(err instanceof ConfigError || err instanceof SchemaTooNewError ? err.message : err);
    exitAfterFlush(err instanceof ConfigError ? 2 : 1);
  });
