/**
 * PostgreSQL through `pg`: the production store. A pool serves reads; a transaction takes its own
 * client. Appends take one transaction-scoped advisory lock so several API processes can append to
 * one database while positions stay gap-free and the hash chain stays linear.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type Db, type Queryable, UniqueViolation } from './types.js';

// BIGINT comes back as a string by default; our positions and satoshi sums fit in a double exactly.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

const APPEND_LOCK_KEY = 734_001;

/** Rewrites `?` placeholders to `$1..$n` (our SQL never contains a literal question mark). */
export function toPgPlaceholders(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

function normalise(params: unknown[] = []): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p === undefined ? null : p));
}

function mapError(err: unknown): never {
  const e = err as { code?: string; message?: string; constraint?: string };
  if (e?.code === '23505') throw new UniqueViolation(e.message ?? 'unique violation', e.constraint ?? 'unknown');
  throw err;
}

/** One value in COPY's text format: `\N` for null, and backslash, tab, newline and CR escaped. */
function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const s = typeof v === 'string' ? v : typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] as string) : s;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<readonly unknown[][]>,
): Promise<number> {
  let count = 0;
  async function* text() {
    for await (const rows of batches) {
      let chunk = '';
      for (const row of rows) chunk += `${row.map(copyField).join('\t')}\n`;
      count += rows.length;
      yield chunk;
    }
  }
  try {
    await pipeline(Readable.from(text()), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)));
  } catch (err) {
    return mapError(err);
  }
  return count;
}

function queryable(client: pg.Pool | pg.ClientBase, tx?: pg.PoolClient): Queryable {
  return {
    ...(tx
      ? {
          copyRows: (table: string, columns: readonly string[], rows: AsyncIterable<readonly unknown[][]>) =>
            copyRows(tx, table, columns, rows),
        }
      : {}),
    async all<T>(sql: string, params?: unknown[]) {
      try {
        const r = await client.query(toPgPlaceholders(sql), normalise(params));
        return r.rows as T[];
      } catch (err) {
        return mapError(err);
      }
    },
    async get<T>(sql: string, params?: unknown[]) {
      try {
        const r = await client.query(toPgPlaceholders(sql), normalise(params));
        return r.rows[0] as T | undefined;
      } catch (err) {
        return mapError(err);
      }
    },
    async run(sql: string, params?: unknown[]) {
      try {
        const r = await client.query(toPgPlaceholders(sql), normalise(params));
        return { changes: r.rowCount ?? 0 };
      } catch (err) {
        return mapError(err);
      }
    },
  };
}

/** One client someone else connected (a backup's snapshot transaction) as a `Queryable`. */
export function pgQueryable(client: pg.ClientBase): Queryable {
  return queryable(client);
}

export function openPostgres(url: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  pool.on('error', () => {
    /* an idle client died; the pool replaces it */
  });
  const q = queryable(pool);
  return {
    dialect: 'postgres',
    selectForUpdateSuffix: ' FOR UPDATE',
    ...q,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(queryable(client, client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(script) {
      // Serialise DDL across processes starting at the same time.
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock(734002)');
        await client.query(script);
      } finally {
        await client.query('SELECT pg_advisory_unlock(734002)').catch(() => {});
        client.release();
      }
    },
    async lockForAppend(tx) {
      await tx.get('SELECT pg_advisory_xact_lock(?)', [APPEND_LOCK_KEY]);
    },
    async close() {
      await pool.end();
    },
  };
}
