/**
 * `pnpm cli migrate`: applies pending schema migrations (db/migrations) and rebuilds any read model
 * whose projection version changed, then says where the schema stands. The server does the same at
 * start; this lets an operator do it ahead of a deploy, with the server stopped.
 */

import { migrate } from '../db/migrate.js';
import { migrateProjections } from '../eventstore/projections.js';
import { describeStore, openDatabase, shredderFor } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

export const migrateCommand: CliCommand = {
  summary: 'apply pending schema migrations and rebuild read models whose version changed',
  async run({ env }) {
    const db = openDatabase(env);
    try {
      const { applied, current } = await migrate(db);
      for (const m of applied) console.log(`Applied migration ${String(m.id).padStart(3, '0')}_${m.name}`);
      const { rebuilt } = await migrateProjections(db, allProjections(), { codec: shredderFor(env) });
      for (const name of rebuilt) console.log(`Rebuilt read model ${name}`);
      console.log(
        `Schema at migration ${current}; ${applied.length} applied, ${rebuilt.length} read models rebuilt (${describeStore(env)})`,
      );
      return 0;
    } finally {
      await db.close();
    }
  },
};
