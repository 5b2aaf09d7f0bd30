/**
 * `pnpm cli audit reconcile [--json]`: replay all events into fresh in-memory state and compare
 * with the live read models; prints every difference and exits 1 when there is any.
 */
import { describeReconcile, reconcile } from '../audit/index.js';
import { closeContext, createContext, describeStore } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

export const auditReconcile: CliCommand = {
  summary: 'replay billing from the events and compare with the read models (exit 1 on differences)',
  async run({ env, site, args }) {
    const { flags } = parseFlags(args);
    const ctx = await createContext(env, site, allProjections());
    try {
      const report = await reconcile(ctx.db, ctx.store);
      if (flags.json) console.log(JSON.stringify(report, null, 2));
      else for (const line of describeReconcile(report)) console.log(line);
      if (!flags.json) console.log(`(${describeStore(env)})`);
      return report.ok ? 0 : 1;
    } finally {
      await closeContext(ctx);
    }
  },
};
