/**
 * Opens an event store named by a URL, for operator tools that work across adapters (`store copy`,
 * `audit verify --store`):
 * - `sqlite:/path/store.sqlite`, `sqlite:///path/store.sqlite`, a `.sqlite` file path, or a data
 *   directory (its `store.sqlite`);
 * - `postgres://…` / `postgresql://…`;
 * - `kurrentdb://…` (also `kurrent://`, `kdb://`, `esdb://` and their `+discover` forms).
 * Only the event log is opened: no read-model projections run (rebuild them with `projections rebuild`).
 * Events are read as stored (sealed personal data stays sealed) unless a `codec` is given: copies and
 * the chain check need the stored form; reports that name members pass the crypto-shredding codec.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openPostgres } from '../db/postgres.js';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import { appendRecordedSql } from './sqlAppendRecorded.js';
import { createSqlEventStore, type EventCodec } from './sqlEventStore.js';
import type { EventStore, RecordedEvent } from './types.js';

export interface OpenedStore {
  kind: 'sqlite' | 'postgres' | 'kurrentdb';
  /** The URL without its password, for messages. */
  label: string;
  store: EventStore;
  /** The SQL database, when the store is SQL (read models live there too). */
  db?: Db;
  appendRecorded(events: RecordedEvent[]): Promise<void>;
  close(): Promise<void>;
}

const KURRENT = /^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//;

export function sqliteFileOf(url: string): string {
  let p = url;
  if (p.startsWith('sqlite://')) p = p.slice('sqlite://'.length);
  else if (p.startsWith('sqlite:')) p = p.slice('sqlite:'.length);
  p = path.resolve(p);
  return /\.(sqlite|sqlite3|db)$/.test(p) ? p : path.join(p, 'store.sqlite');
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** `create: false` refuses to make a new SQLite file (a typo in a source path must not read as an empty log). */
export async function openStoreUrl(url: string, opts: { create?: boolean; codec?: EventCodec } = {}): Promise<OpenedStore> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const db = openPostgres(url);
    const store = await createSqlEventStore(db, { codec: opts.codec });
    return sqlOpened('postgres', redactUrl(url), db, store);
  }
  if (KURRENT.test(url)) {
    // Loaded on demand: the KurrentDB client (with its native part) is only needed for kurrentdb:// URLs.
    const { createKurrentEventStore } = await import('./kurrentEventStore.js');
    const store = createKurrentEventStore(url);
    return { kind: 'kurrentdb', label: redactUrl(url), store, appendRecorded: (e) => store.appendRecorded(e), close: () => store.close() };
  }
  const file = sqliteFileOf(url);
  if (opts.create === false && !fs.existsSync(file)) throw new Error(`No SQLite event store at ${file}`);
  const db = openSqlite(file);
  const store = await createSqlEventStore(db, { codec: opts.codec });
  return sqlOpened('sqlite', `sqlite:${file}`, db, store);
}

function sqlOpened(kind: 'sqlite' | 'postgres', label: string, db: Db, store: EventStore): OpenedStore {
  return {
    kind,
    label,
    store,
    db,
    appendRecorded: (events) => appendRecordedSql(db, events),
    async close() {
      await store.close();
      await db.close();
    },
  };
}
