/**
 * The event store over a SQL database (SQLite or PostgreSQL). Appends run in one transaction that
 * also runs the inline projections, so read models never lag their events and a failed projection
 * (say, a unique e-mail) rolls the append back.
 */
import { randomUUID } from 'node:crypto';
import { migrate } from '../db/migrate.js';
import type { Db, Queryable } from '../db/types.js';
import { chainEvents, GENESIS_HASH } from './hashChain.js';
import {
  type AppendOptions,
  type AppendResult,
  ConcurrencyError,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
} from './types.js';

/** Runs inside the append transaction, once per appended event, in order. */
export type InlineProjector = (tx: Queryable, event: RecordedEvent) => Promise<void>;

interface EventRow {
  position: number;
  stream_id: string;
  version: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
  prev_hash: string;
  hash: string;
}

export function rowToEvent(row: EventRow): RecordedEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    version: Number(row.version),
    position: Number(row.position),
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    recordedAt: row.recorded_at,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/**
 * The events of every stream whose id starts with `prefix` and ends with `suffix`, in log order,
 * as stored (open them through the codec): for a reader that wants one member's streams of a kind
 * (the views of every video by one viewer, `video-views-{videoId}-{userId}`). The SQL log only.
 */
export async function readStreamsMatching(db: Queryable, prefix: string, suffix: string): Promise<RecordedEvent[]> {
  const like = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);
  const rows = await db.all<EventRow>(`SELECT * FROM events WHERE stream_id LIKE ? ESCAPE '\\' ORDER BY position`, [
    `${like(prefix)}%${like(suffix)}`,
  ]);
  // LIKE ignores case in SQLite: the ends are checked exactly.
  return rows.map(rowToEvent).filter((e) => e.streamId.startsWith(prefix) && e.streamId.endsWith(suffix));
}

function checkExpected(streamId: string, expected: ExpectedVersion, actual: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && actual === 0) ||
    (expected === 'stream_exists' && actual > 0) ||
    (typeof expected === 'number' && expected === actual);
  if (!ok) throw new ConcurrencyError(streamId, expected, actual);
}

/** Turns events into their stored form inside the append transaction and back for readers (shredding/shredder.ts). */
export interface EventCodec {
  seal(tx: Queryable, events: NewEvent[], now: Date): Promise<NewEvent[]>;
  open(q: Queryable, events: RecordedEvent[]): Promise<RecordedEvent[]>;
}

export interface SqlEventStoreOptions {
  /** Projections run in the append transaction (they see the readable form of the events). */
  project?: InlineProjector;
  now?: () => Date;
  /**
   * Personal data sealing (crypto-shredding). Without it, events are stored and read exactly as given:
   * the raw view the hash chain is verified and copied over.
   */
  codec?: EventCodec;
}

/** Events per multi-row INSERT: 10 parameters each stays well under SQLite's and PostgreSQL's parameter limits. */
const INSERT_CHUNK = 500;
/** Streams per version read: one result column each, under PostgreSQL's 1,664 and SQLite's 2,000 columns. */
const VERSION_READ_CHUNK = 500;

/** One stream's append inside a batch or a group commit. */
export interface BatchAppend {
  streamId: string;
  events: NewEvent[];
  options: AppendOptions;
}

export interface SqlEventStore extends EventStore {
  /** Appends to several streams in one transaction; resolves with the last position written. */
  appendBatch(items: BatchAppend[]): Promise<number>;
}

/**
 * Each stream's current version (0 for a new stream). One scalar MAX per stream, each a single seek
 * to the end of that stream in the (stream_id, version) index; `MAX(version) … IN (…) GROUP BY
 * stream_id` would read every event of every stream, a cost that grows with the streams' length.
 */
async function streamVersions(tx: Queryable, streamIds: string[]): Promise<Map<string, number>> {
  const versions = new Map<string, number>();
  for (let i = 0; i < streamIds.length; i += VERSION_READ_CHUNK) {
    const chunk = streamIds.slice(i, i + VERSION_READ_CHUNK);
    const row = await tx.get<Record<string, number | string | null>>(
      `SELECT ${chunk.map((_, k) => `(SELECT MAX(version) FROM events WHERE stream_id = ?) AS v${k}`).join(', ')}`,
      chunk,
    );
    for (const [k, s] of chunk.entries()) versions.set(s, Number(row?.[`v${k}`] ?? 0));
  }
  return versions;
}

/** Writes chained events as they are, one multi-row INSERT per 500 (appends, and `store copy`'s sqlAppendRecorded.ts). */
export async function insertEvents(tx: Queryable, events: RecordedEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += INSERT_CHUNK) {
    const chunk = events.slice(i, i + INSERT_CHUNK);
    await tx.run(
      `INSERT INTO events (position, stream_id, version, event_id, type, data, metadata, recorded_at, prev_hash, hash)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flatMap((rec) => [
        rec.position,
        rec.streamId,
        rec.version,
        rec.eventId,
        rec.type,
        JSON.stringify(rec.data),
        JSON.stringify(rec.metadata),
        rec.recordedAt,
        rec.prevHash,
        rec.hash,
      ]),
    );
  }
}

/**
 * Appends to one or more streams inside `tx`, which already holds the append lock, in order: the
 * group of a group commit, or a batch. Round trips do not grow with the group: one read of the
 * streams' versions, one of the log's head, one multi-row INSERT (per 500 events), then the
 * inline projections event by event. Any expected-version mismatch throws before anything is written.
 * Returns each item's events in their readable form (what the read models and the callers see).
 */
async function appendGroupInTx(
  tx: Queryable,
  items: readonly BatchAppend[],
  options: SqlEventStoreOptions,
  now: () => Date,
): Promise<RecordedEvent[][]> {
  for (const it of items) if (it.events.length === 0) throw new Error('append needs at least one event');
  // 2. Optimistic concurrency on each stream (appends in the group to one stream follow each other).
  const versions = await streamVersions(tx, [...new Set(items.map((it) => it.streamId))]);
  // 3. Chain onto the last event of the log.
  const last = await tx.get<{ position: number; hash: string }>('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1');
  let head = { position: Number(last?.position ?? 0), hash: last?.hash ?? GENESIS_HASH };
  const recordedAt = now();
  const stored: RecordedEvent[] = [];
  const readable: RecordedEvent[][] = [];
  for (const it of items) {
    const actual = versions.get(it.streamId) ?? 0;
    checkExpected(it.streamId, it.options.expectedVersion, actual);
    await it.options.inTransaction?.(tx);
    // 3a. Personal fields sealed before hashing: the chain covers exactly the stored bytes.
    const sealed = options.codec ? await options.codec.seal(tx, it.events, recordedAt) : it.events;
    const chained = chainEvents(
      sealed,
      {
        streamId: it.streamId,
        baseVersion: actual,
        headPosition: head.position,
        headHash: head.hash,
        metadata: it.options.metadata,
        recordedAt: recordedAt.toISOString(),
      },
      randomUUID,
    ) as RecordedEvent[];
    const tail = chained[chained.length - 1] as RecordedEvent;
    head = { position: tail.position, hash: tail.hash };
    versions.set(it.streamId, tail.version);
    stored.push(...chained);
    // Read models see the readable form (what a reader decodes).
    readable.push(options.codec ? chained.map((rec, i) => ({ ...rec, data: (it.events[i] as NewEvent).data })) : chained);
  }
  await insertEvents(tx, stored);
  // 4. Read models move in the same transaction, in log order.
  if (options.project) for (const recs of readable) for (const rec of recs) await options.project(tx, rec);
  return readable;
}

/** One append's answer, delivered once its group's transaction committed. */
interface Pending extends BatchAppend {
  resolve(events: RecordedEvent[]): void;
  reject(err: unknown): void;
}

const GROUP_MAX = 64;

/**
 * Group commit. Appends share one lock (positions and the hash chain are linear), so concurrent
 * appends would otherwise commit one at a time, each paying its own lock, head read and commit.
 * Appends that arrive in the same turn of the event loop, or while a commit is in flight, wait in
 * the queue, and the next transaction takes them all (the head read once, carried from one append to
 * the next). When any of them fails (a concurrency conflict, a unique rule), that transaction rolls
 * back and the group's appends run again one transaction each, so each is answered exactly as if
 * it had run alone. Nobody is answered before the commit that holds their events.
 */
function groupCommit(
  commit: (items: readonly BatchAppend[]) => Promise<RecordedEvent[][]>,
  notify: (recorded: RecordedEvent[]) => void,
): (item: BatchAppend) => Promise<RecordedEvent[]> {
  const queue: Pending[] = [];
  let flushing = false;

  const answer = (p: Pending, recorded: RecordedEvent[]) => {
    notify(recorded);
    p.resolve(recorded);
  };

  /** Commits the queue, group by group; `enqueue` set `flushing` when it scheduled this. */
  async function flush(): Promise<void> {
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, GROUP_MAX);
        // one of them failed: each runs alone below, to get its own answer
        const results = group.length > 1 ? await commit(group).catch(() => undefined) : undefined;
        if (results) {
          for (const [i, p] of group.entries()) answer(p, results[i] as RecordedEvent[]);
          continue;
        }
        for (const p of group) {
          try {
            answer(p, (await commit([p]))[0] as RecordedEvent[]);
          } catch (err) {
            p.reject(err);
          }
        }
      }
    } finally {
      flushing = false;
    }
  }

  return (item) =>
    new Promise<RecordedEvent[]>((resolve, reject) => {
      queue.push({ ...item, resolve, reject });
      if (!flushing) {
        // Start the commit after the current turn of the event loop, so that the appends other
        // callers make in this same turn (e.g. the writers the last commit just answered) join it.
        flushing = true;
        setImmediate(() => void flush());
      }
    });
}

export async function createSqlEventStore(db: Db, options: SqlEventStoreOptions = {}): Promise<SqlEventStore> {
  // The log's own tables come from the versioned migrations; a newer database is refused here.
  await migrate(db);
  const listeners = new Set<(events: RecordedEvent[]) => void>();
  const now = options.now ?? (() => new Date());

  /** One transaction: the append lock (1. one writer at a time: positions and the hash chain are linear), then the group. */
  const commit = (items: readonly BatchAppend[]) =>
    db.transaction(async (tx) => {
      await db.lockForAppend(tx);
      return appendGroupInTx(tx, items, options, now);
    });

  function notify(recorded: RecordedEvent[]): void {
    for (const l of listeners) {
      try {
        l(recorded);
      } catch {
        /* a listener's fault is not the writer's */
      }
    }
  }

  const enqueue = groupCommit(commit, notify);

  async function append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const recorded = await enqueue({ streamId, events, options: opts });
    const lastEvent = recorded[recorded.length - 1] as RecordedEvent;
    return { nextVersion: lastEvent.version, lastPosition: lastEvent.position, events: recorded };
  }

  /**
   * Several streams' appends in one transaction (all or nothing): what an import or a bulk generator
   * needs, one commit for many streams instead of one each. Every stream's expected version is checked.
   */
  async function appendBatch(items: BatchAppend[]): Promise<number> {
    if (items.length === 0) return 0;
    const recorded = (await commit(items)).flat();
    notify(recorded);
    return (recorded[recorded.length - 1] as RecordedEvent).position;
  }

  async function readAll(opts: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const rows = await db.all<EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?', [
      opts.after ?? 0,
      opts.limit ?? 1000,
    ]);
    return decode(rows.map(rowToEvent));
  }

  function decode(events: RecordedEvent[]): Promise<RecordedEvent[]> | RecordedEvent[] {
    return options.codec ? options.codec.open(db, events) : events;
  }

  return {
    append,
    appendBatch,
    async readStream(streamId) {
      const rows = await db.all<EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY version', [streamId]);
      return decode(rows.map(rowToEvent));
    },
    readAll,
    async *streamAll(opts = {}) {
      let after = opts.after ?? 0;
      const batchSize = opts.batchSize ?? 500;
      for (;;) {
        const batch = await readAll({ after, limit: batchSize });
        for (const e of batch) yield e;
        if (batch.length < batchSize) return;
        after = (batch[batch.length - 1] as RecordedEvent).position;
      }
    },
    async headPosition() {
      const r = await db.get<{ p: number | null }>('SELECT MAX(position) AS p FROM events');
      return Number(r?.p ?? 0);
    },
    onAppended(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}
