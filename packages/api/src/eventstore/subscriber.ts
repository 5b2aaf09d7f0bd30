/**
 * Checkpointed subscribers for side effects (e-mail outbox, schedulers' follow-ups). Each event is
 * handled in a transaction that also advances the subscriber's checkpoint, and the checkpoint row is
 * re-read (and locked on PostgreSQL) inside that transaction, so an event's work is done exactly once
 * even with several processes or after a crash.
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

async function readCheckpoint(q: Queryable, name: string, suffix = ''): Promise<number> {
  const row = await q.get<{ position: number }>(`SELECT position FROM checkpoints WHERE name = ?${suffix}`, [name]);
  return Number(row?.position ?? 0);
}

async function catchUp(db: Db, store: EventStore, sub: Subscriber): Promise<void> {
  for (;;) {
    const from = await readCheckpoint(db, sub.name);
    const batch = await store.readAll({ after: from, limit: 200 });
    if (batch.length === 0) return;
    for (const event of batch) {
      await db.transaction(async (tx) => {
        await tx.run('INSERT INTO checkpoints (name, position) VALUES (?, 0) ON CONFLICT (name) DO NOTHING', [sub.name]);
        const current = await readCheckpoint(tx, sub.name, db.selectForUpdateSuffix);
        if (current >= event.position) return; // another process did it
        if (!sub.types || sub.types.includes(event.type)) await sub.handle(tx, event);
        await tx.run('UPDATE checkpoints SET position = ? WHERE name = ?', [event.position, sub.name]);
      });
    }
  }
}

export function startSubscribers(
  db: Db,
  store: EventStore,
  subscribers: Subscriber[],
  opts: { pollMs?: number; onError?: (err: unknown, sub: Subscriber) => void } = {},
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
          await catchUp(db, store, sub);
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
