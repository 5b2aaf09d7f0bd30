/**
 * Applies the versioned migrations (db/migrations) to a database, in order, in one transaction that
 * holds the append lock, so several processes starting together apply each migration once. A
 * database whose applied migrations are newer than this code is refused: old code must not write
 * to a schema it does not know.
 */
import { migrations as allMigrations, type Migration } from './migrations/index.js';
import type { Db, Queryable } from './types.js';

export class SchemaTooNewError extends Error {
  constructor(
    readonly applied: number,
    readonly known: number,
  ) {
    super(
      `The database schema is at migration ${applied}, newer than this code knows (${known}). ` +
        'Run the newer version of the application, or restore a backup taken before the upgrade.',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** Splits a script into statements (our migrations never put `;` inside a string literal). */
export function splitStatements(script: string): string[] {
  return script
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export async function execStatements(tx: Queryable, script: string): Promise<void> {
  for (const statement of splitStatements(script)) await tx.run(statement);
}

export interface MigrateResult {
  applied: Migration[];
  current: number;
}

export async function migrate(db: Db, migrations: readonly Migration[] = allMigrations): Promise<MigrateResult> {
  const known = migrations.reduce((max, m) => Math.max(max, m.id), 0);
  return db.transaction(async (tx) => {
    await db.lockForAppend(tx);
    await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const rows = await tx.all<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.id)));
    const newest = Math.max(0, ...done);
    if (newest > known) throw new SchemaTooNewError(newest, known);
    const applied: Migration[] = [];
    for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
      if (done.has(m.id)) continue;
      await execStatements(tx, db.dialect === 'postgres' ? m.postgres : m.sqlite);
      await tx.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [m.id, m.name, new Date().toISOString()]);
      applied.push(m);
    }
    return { applied, current: Math.max(newest, known) };
  });
}
