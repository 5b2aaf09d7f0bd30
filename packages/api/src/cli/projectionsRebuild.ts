/** `pnpm cli projections rebuild`: drop and recreate every read model's tables and replay the whole log. */

import { rebuildProjections } from '../eventstore/projections.js';
import { closeContext, createContext, describeStore } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

export const projectionsRebuild: CliCommand = {
  summary: 'drop all read models and rebuild them from the event log',
  async run({ env, site }) {
    const ctx = await createContext(env, site, allProjections());
    try {
      const started = performance.now();
      const { events } = await rebuildProjections(ctx.db, ctx.store, ctx.projections, { logger: ctx.logger });
      console.log(
        `Rebuilt ${ctx.projections.length} projections from ${events} events in ${Math.round(performance.now() - started)} ms (${describeStore(env)})`,
      );
      return 0;
    } finally {
      await closeContext(ctx);
    }
  },
};
