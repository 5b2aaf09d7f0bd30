/**
 * Checkpointed subscribers for side effects (e-mail outbox, schedulers' follow-ups). Events are
 * handled in batches, each batch in one transaction that also advances the subscriber's checkpoint,
 * and the checkpoint row is re-read (and locked on PostgreSQL) inside that transaction, so an event's
 * work is done exactly once even with several processes or after a crash.
 *
 * Catch-up runs beside serving, never before it: between batches the loop yields to the event loop
 * (`setImmediate`), so a subscriber far behind the head (a restored store, a long outage, a new
 * subscriber) never starves the HTTP listener. Progress is logged, and `subscriberLag` (read by
 * `/api/health` and the metrics) reports how far each one is behind.
 */
import type { Db, Queryable } from '../db/types.js';
import type { EventStore, RecordedEvent } from './types.js';

export interface Subscriber {
  name: string;
  /** Event types of interest (others only advance the checkpoint). */
  types?: string[];
  handle(tx: Queryable, event: RecordedEvent): Promise<void>;
}

export interface RunningSubscribers {
  /** Processes everything appended so far; resolves when caught up. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export interface SubscriberLag {
  name: string;
  position: number;
  /** Head position minus the checkpoint. */
  lag: number;
}

type Log = { info(obj: object, msg: string): void };

/** Events per transaction while catching up; the event loop gets a turn between two batches. */
export const CATCH_UP_BATCH = 500;
/** A pass this far behind is logged as a catch-up, with progress lines. */
const LOG_LAG = 5_000;
const PROGRESS_EVERY_MS = 5_000;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function readCheckpoint(q: Queryable, name: string, suffix = ''): Promise<number> {
  const row = await q.get<{ position: number }>(`SELECT position FROM checkpoints WHERE name = ?${suffix}`, [name]);
  return Number(row?.position ?? 0);
}

/** Creates the checkpoint rows (at 0) of subscribers that have none, so their lag shows from the start. */
export async function registerCheckpoints(db: Db, names: string[]): Promise<void> {
  for (const name of names) {
    await db.run('INSERT INTO checkpoints (name, position) VALUES (?, 0) ON CONFLICT (name) DO NOTHING', [name]);
  }
}

/** How far behind the head every checkpointed subscriber is (two indexed reads; cheap enough for a health check). */
export async function subscriberLag(db: Queryable, store: Pick<EventStore, 'headPosition'>): Promise<SubscriberLag[]> {
  const [head, rows] = await Promise.all([
    store.headPosition(),
    db.all<{ name: string; position: number }>('SELECT name, position FROM checkpoints ORDER BY name'),
  ]);
  return rows.map((r) => ({ name: r.name, position: Number(r.position), lag: Math.max(0, head - Number(r.position)) }));
}

async function catchUp(db: Db, store: EventStore, sub: Subscriber, logger: Log | undefined, isStopped: () => boolean): Promise<void> {
  const startedAt = await readCheckpoint(db, sub.name);
  const head = await store.headPosition();
  const logged = head - startedAt >= LOG_LAG;
  if (logged) logger?.info({ subscriber: sub.name, position: startedAt, head, lag: head - startedAt }, 'subscriber catching up');
  let lastLog = Date.now();
  let handled = 0;
  for (;;) {
    if (isStopped()) return;
    const from = await readCheckpoint(db, sub.name);
    const batch = await store.readAll({ after: from, limit: CATCH_UP_BATCH });
    if (batch.length === 0) break;
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO checkpoints (name, position) VALUES (?, 0) ON CONFLICT (name) DO NOTHING', [sub.name]);
      const current = await readCheckpoint(tx, sub.name, db.selectForUpdateSuffix);
      let last = current;
      for (const event of batch) {
        if (event.position <= current) continue; // another process did it
        if (!sub.types || sub.types.includes(event.type)) await sub.handle(tx, event);
        last = event.position;
      }
      if (last > current) await tx.run('UPDATE checkpoints SET position = ? WHERE name = ?', [last, sub.name]);
    });
    handled += batch.length;
    if (logged && Date.now() - lastLog >= PROGRESS_EVERY_MS) {
      lastLog = Date.now();
      const position = (batch[batch.length - 1] as RecordedEvent).position;
      logger?.info({ subscriber: sub.name, position, head, lag: Math.max(0, head - position) }, 'subscriber catch-up progress');
    }
    // Let the HTTP listener (and everything else) run between two batches.
    await yieldToEventLoop();
  }
  if (logged) logger?.info({ subscriber: sub.name, events: handled }, 'subscriber caught up');
}

export function startSubscribers(
  db: Db,
  store: EventStore,
  subscribers: Subscriber[],
  opts: { pollMs?: number; onError?: (err: unknown, sub: Subscriber) => void; logger?: Log } = {},
): RunningSubscribers {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let again = false;

  const runAll = (): Promise<void> => {
    if (stopped) return running;
    if (again) return running;
    again = true;
    running = running.then(async () => {
      again = false;
      for (const sub of subscribers) {
        try {
          await catchUp(db, store, sub, opts.logger, () => stopped);
        } catch (err) {
          opts.onError?.(err, sub);
        }
      }
    });
    return running;
  };

  const unlisten = store.onAppended(() => void runAll());
  const timer = setInterval(() => void runAll(), opts.pollMs ?? 1000);
  timer.unref();
  void runAll();

  return {
    async drain() {
      await runAll();
      await running;
    },
    async stop() {
      stopped = true;
      unlisten();
      clearInterval(timer);
      await running;
    },
  };
}
