/**
 * Operator commands (`pnpm cli <command>`), reading the same environment as the server and
 * working with the server stopped. Each command lives in its own module and registers here.
 */
import { ConfigError, parseEnv } from '../config/env.js';
import { loadSiteConfig } from '../config/site.js';
import { SchemaTooNewError } from '../db/migrate.js';
import { commands } from './commands.js';
import { cliDevDefaults } from './devDefaults.js';

const HELP_ARGS = ['help', '--help', '-h'];

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  pnpm cli ${name.padEnd(28)} ${c.summary}`);
  return `Usage: pnpm cli <command> [arguments]   (pnpm cli --help: this list)\n\nCommands:\n${lines.join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  // Longest matching command name wins ("audit verify" before "audit").
  const names = Object.keys(commands).sort((a, b) => b.split(' ').length - a.split(' ').length);
  const name = names.find((n) => n.split(' ').every((part, i) => argv[i] === part));
  if (!name) {
    if (argv.length === 0 || (argv.length === 1 && HELP_ARGS.includes(argv[0] as string))) {
      console.log(usage());
      return 0;
    }
    console.error(`Unknown command: ${argv.join(' ')}\n`);
    console.error(usage());
    return 2;
  }
  const command = commands[name] as (typeof commands)[string];
  const rest = argv.slice(name.split(' ').length);
  const bare = command.runBare?.(rest);
  if (bare) return bare;
  const env = parseEnv();
  const devDefaults = command.fillsDevDefaults ? [] : cliDevDefaults(env);
  const { config: site } = loadSiteConfig(env.SITE_CONFIG);
  return command.run({ env, site, args: rest, devDefaults });
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
