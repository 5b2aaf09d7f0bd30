/**
 * `pnpm cli runners token create NAME | list | revoke NAME`: the tokens remote transcode runners
 * hold (transcode/runnerTokens.ts). Run on a server machine (its DATABASE_URL); the token is
 * printed once and only its hash is stored. A revoked token is refused by the next call of any
 * runner using it, which then stops with a message.
 */
import { closeContext, createContext } from '../kernel/context.js';
import { createRunnerToken, listRunnerTokens, revokeRunnerToken } from '../transcode/index.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand, CliInput } from './command.js';

async function withContext(input: CliInput, fn: (ctx: Awaited<ReturnType<typeof createContext>>) => Promise<number>): Promise<number> {
  const ctx = await createContext(input.env, input.site, allProjections());
  try {
    return await fn(ctx);
  } finally {
    await closeContext(ctx);
  }
}

export const runnersTokenCreate: CliCommand = {
  summary: 'make a transcode runner token NAME (printed once; the runner reads it as RUNNER_TOKEN)',
  run(input) {
    const name = input.args[0];
    if (!name || input.args.length !== 1) {
      console.error('Usage: pnpm cli runners token create NAME');
      return Promise.resolve(2);
    }
    return withContext(input, async (ctx) => {
      const made = await createRunnerToken(ctx.db, name, ctx.clock.now().toISOString());
      if (!made.ok) {
        console.error(made.error);
        return 1;
      }
      console.error(`Runner token "${name}" made. It is shown once: give it to the runner as RUNNER_TOKEN.`);
      console.log(made.token);
      return 0;
    });
  },
};

export const runnersTokenList: CliCommand = {
  summary: 'list the transcode runner tokens: name, made, last used, revoked',
  run(input) {
    return withContext(input, async (ctx) => {
      const rows = await listRunnerTokens(ctx.db);
      if (rows.length === 0) {
        console.log('No runner tokens (pnpm cli runners token create NAME makes one).');
        return 0;
      }
      console.log(['name', 'created', 'last used', 'revoked'].join('\t'));
      for (const r of rows) console.log([r.name, r.created_at, r.last_used_at ?? '-', r.revoked_at ?? '-'].join('\t'));
      return 0;
    });
  },
};

export const runnersTokenRevoke: CliCommand = {
  summary: 'revoke the transcode runner token NAME (its runners stop at their next call)',
  run(input) {
    const name = input.args[0];
    if (!name || input.args.length !== 1) {
      console.error('Usage: pnpm cli runners token revoke NAME');
      return Promise.resolve(2);
    }
    return withContext(input, async (ctx) => {
      if (!(await revokeRunnerToken(ctx.db, name, ctx.clock.now().toISOString()))) {
        console.error(`No live runner token named "${name}"`);
        return 1;
      }
      console.log(`Runner token "${name}" revoked.`);
      return 0;
    });
  },
};
