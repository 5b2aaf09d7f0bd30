/**
 * SQLite through better-sqlite3: the embedded default. One writer connection guarded by an async
 * mutex (so an open transaction never sees another request's statements), WAL mode, `BEGIN IMMEDIATE`
 * and a busy timeout for other processes; a second connection serves reads, which only ever see
 * committed data.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Mutex } from '../shared/mutex.js';
import { type Db, type Queryable, UniqueViolation } from './types.js';

function normalise(params: unknown[] = []): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p === undefined ? null : p));
}

function mapError(err: unknown): never {
  const e = err as { code?: string; message?: string };
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const match = /UNIQUE constraint failed: (.+)$/.exec(e.message ?? '');
    throw new UniqueViolation(e.message ?? 'unique violation', match?.[1] ?? 'unknown');
  }
  throw err;
}

/** Prepared statements are reused per SQL text: preparing costs more than running most of our statements. */
const STATEMENT_CACHE_MAX = 500;

function queryable(conn: Database.Database): Queryable {
  const cache = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE_MAX) cache.clear();
      stmt = conn.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return {
    async all<T>(sql: string, params?: unknown[]) {
      try {
        return prepare(sql).all(...normalise(params)) as T[];
      } catch (err) {
        return mapError(err);
      }
    },
    async get<T>(sql: string, params?: unknown[]) {
      try {
        return prepare(sql).get(...normalise(params)) as T | undefined;
      } catch (err) {
        return mapError(err);
      }
    },
    async run(sql: string, params?: unknown[]) {
      try {
        const r = prepare(sql).run(...normalise(params));
        return { changes: r.changes };
      } catch (err) {
        return mapError(err);
      }
    },
  };
}

/** One better-sqlite3 connection someone else opened (a backup's read-only copy) as a `Queryable`. */
export function sqliteQueryable(conn: Database.Database): Queryable {
  return queryable(conn);
}

export function openSqlite(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.pragma('busy_timeout = 5000');
  writer.pragma('foreign_keys = ON');
  // Deleted and overwritten content is zeroed, not left in free space: an erased member's old rows
  // must not survive in the file's bytes (crypto-shredding; the erasure also truncates the WAL).
  writer.pragma('secure_delete = ON');
  // An in-memory database is private to its connection, so reads must use the writer there.
  const reader = file === ':memory:' ? writer : new Database(file, { readonly: false });
  if (reader !== writer) {
    reader.pragma('busy_timeout = 5000');
  }
  const mutex = new Mutex();
  const w = queryable(writer);
  const r = queryable(reader);
  let closed = false;

  return {
    dialect: 'sqlite',
    selectForUpdateSuffix: '',
    all: (sql, params) => (reader === writer ? mutex.run(() => r.all(sql, params)) : r.all(sql, params)),
    get: (sql, params) => (reader === writer ? mutex.run(() => r.get(sql, params)) : r.get(sql, params)),
    run: (sql, params) => mutex.run(() => w.run(sql, params)),
    async transaction(fn) {
      return mutex.run(async () => {
        writer.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(w);
          writer.exec('COMMIT');
          return result;
        } catch (err) {
          if (writer.inTransaction) writer.exec('ROLLBACK');
          throw err;
        }
      });
    },
    async exec(script) {
      await mutex.run(async () => writer.exec(script));
    },
    async lockForAppend() {
      // BEGIN IMMEDIATE already holds SQLite's single write lock.
    },
    async close() {
      if (closed) return;
      closed = true;
      await mutex.run(async () => {
        if (reader !== writer) reader.close();
        writer.close();
      });
    },
  };
}
