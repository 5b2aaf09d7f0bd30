/**
 * The one given/then helper for projection tests (Emmett's shape): given these events, as the
 * deciders decide them, then these rows, read back with SQL and compared exactly. Test code only:
 * nothing in production imports a `*.testkit.ts` file.
 *
 * Each check runs on a fresh in-memory SQLite (`db/sqlite.ts`) with the schema migrations and the
 * projections' own tables (`migrateProjections`), appends the events through the real SQL event
 * store with the projections inline (as production does, in the append transaction), reads the
 * rows, then bumps the projection's `version` and runs `migrateProjections` again, the start-up
 * path that drops the tables and replays the log, and reads the same rows again. So every check
 * also proves the read model is rebuilt from the log row for row (a table missing from `tables`, or
 * a counter moved twice, fails it). A counter group that went back to zero keeps its row live and
 * has none after a rebuild: read counters `WHERE n <> 0`.
 *
 * Events come from the deciders, never typed by hand, so they cannot drift from what production
 * appends: `stream(id).decide(decider, command)` runs the command against the events decided on
 * that stream so far (a second-factor command sees the account's registration, for instance).
 *
 * @example
 * const alice = stream(userStream('u1'));
 * const registered = alice.decide(userDecider, { type: 'Register', data: {...}, now: T1 });
 * await projectionSpec(usersProjection).given(registered).thenRows('SELECT id, status FROM users', [{ id: 'u1', status: 'pending' }]);
 */
import { expect } from 'vitest';
import { openSqlite } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import type { Decider } from '../shared/decider.js';
import { inlineProjector, migrateProjections, type Projection } from './projections.js';
import { createSqlEventStore } from './sqlEventStore.js';
import type { NewEvent } from './types.js';

/** What one command decided on one stream: appended together, as the command handler does. */
export interface Decision<E extends NewEvent = NewEvent> {
  streamId: string;
  events: E[];
  /** The command's time: the events' `metadata.at` and `recordedAt`. */
  at: string;
  /** More metadata the command's caller records (e.g. an import's `contentSha256`). */
  metadata?: Record<string, unknown>;
}

/** The command's own time (`now`, or `data.at`), which production also records as `metadata.at`. */
function timeOf(command: unknown): string | undefined {
  const c = command as { now?: unknown; data?: { at?: unknown } };
  if (typeof c.now === 'string') return c.now;
  if (typeof c.data?.at === 'string') return c.data.at;
  return undefined;
}

/**
 * One stream's history, decided command by command. `decide` folds the stream's events so far
 * through `decider`, decides `command` and returns the events (the command must be accepted and
 * decide something: a refusal here is a mistake in the test). `at` defaults to the command's time.
 */
export function stream(streamId: string) {
  const history: NewEvent[] = [];
  return {
    streamId,
    decide<C, E extends NewEvent, S>(decider: Decider<C, E, S>, command: C, at: string | undefined = timeOf(command)): Decision<E> {
      if (at === undefined) throw new Error(`${streamId}: this command carries no time; pass \`at\``);
      const state = history.reduce<S>((s, e) => decider.evolve(s, e as E), decider.initialState());
      const result = decider.decide(command, state);
      if (!result.ok) throw new Error(`${streamId}: the decider refused the command (${result.error.code}: ${result.error.message})`);
      if (result.events.length === 0) throw new Error(`${streamId}: the decider decided nothing`);
      history.push(...result.events);
      return { streamId, events: result.events, at };
    },
  };
}

/** SQL → the exact rows it must read (order included: give the query an ORDER BY). */
export type RowChecks = Record<string, readonly Record<string, unknown>[]>;

interface Run {
  db: Db;
  append(decisions: readonly Decision[]): Promise<void>;
}

/**
 * Binds the helper to one projection. `after`: the projections that run before it in production
 * (modules.ts order) and whose tables it reads or writes (billing sets columns on identity's
 * `users`; the analytics read billing's counters), set up and applied the same way.
 */
export function projectionSpec(projection: Projection, opts: { after?: Projection[] } = {}) {
  const all = [...(opts.after ?? []), projection];

  async function open(): Promise<Run> {
    const db = openSqlite(':memory:');
    await migrateProjections(db, all);
    let now = new Date(0);
    const store = await createSqlEventStore(db, { project: inlineProjector(all), now: () => now });
    return {
      db,
      async append(decisions) {
        for (const d of decisions) {
          now = new Date(d.at);
          await store.append(d.streamId, d.events, { expectedVersion: 'any', metadata: { ...d.metadata, at: d.at, actorId: null } });
        }
      },
    };
  }

  async function read(db: Db, checks: RowChecks): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const sql of Object.keys(checks)) out[sql] = await db.all(sql);
    return out;
  }

  /** Every row of every table the projections own (for "nothing changed"). */
  async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const t of all.flatMap((p) => p.tables)) out[t] = await db.all(`SELECT * FROM ${t} ORDER BY 1`);
    out.events = await db.all('SELECT position, stream_id, type FROM events ORDER BY position');
    return out;
  }

  function given(...history: Decision[]) {
    const expectations = (events: readonly Decision[]) => {
      /** Then exactly these rows for each query, live and after a rebuild from the log. */
      async function thenTables(checks: RowChecks): Promise<void> {
        const run = await open();
        try {
          await run.append(events);
          expect(await read(run.db, checks), 'rows after the appends').toEqual(checks);
          const bumped = { ...projection, version: projection.version + 1 };
          const { rebuilt } = await migrateProjections(run.db, [...all.slice(0, -1), bumped]);
          expect(rebuilt).toEqual([projection.name]);
          expect(await read(run.db, checks), 'rows after a rebuild from the log').toEqual(checks);
        } finally {
          await run.db.close();
        }
      }
      /** Then exactly these rows (one query). */
      const thenRows = (sql: string, rows: readonly Record<string, unknown>[]) => thenTables({ [sql]: rows });
      return { thenTables, thenRows };
    };
    return {
      ...expectations(history),
      /**
       * When these events are appended after `history`: `thenTables`/`thenRows` read the rows after both;
       * `thenFails` expects this append to be refused by the projection (a unique rule) and rolled
       * back whole: the log and every read-model table as `history` left them.
       */
      when(...events: Decision[]) {
        return {
          ...expectations([...history, ...events]),
          async thenFails(check: (err: unknown) => void): Promise<void> {
            const run = await open();
            try {
              await run.append(history);
              const before = await snapshot(run.db);
              const failure = await run.append(events).then(
                () => undefined,
                (err: unknown) => ({ err }),
              );
              expect(failure, 'the append was refused').toBeDefined();
              check(failure?.err);
              expect(await snapshot(run.db), 'nothing written').toEqual(before);
            } finally {
              await run.db.close();
            }
          },
        };
      },
    };
  }

  return { given };
}
